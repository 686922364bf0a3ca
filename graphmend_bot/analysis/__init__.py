"""Static detection of graph breaks on the stdlib `ast`.

`summary` turns one file into a picklable ModuleSummary (run in parallel workers), `function`
analyses one function body, and `scope` decides across modules what TorchDynamo traces.
"""
