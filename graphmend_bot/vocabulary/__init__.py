"""The vocabulary rules, analysis and rewrites share: kinds of values and the names they know.

It sits below the three and imports none of them, so imports run one way (rules -> vocabulary <-
analysis; tests/test_import_direction.py).
"""
