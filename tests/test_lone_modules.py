"""A lone module's top level says whether it is a library or a script (analysis/lone_modules.py)."""

import ast
import textwrap

import pytest

from graphmend_bot.analysis.lone_modules import defines_only


@pytest.mark.parametrize("source, library", [
    ('"""Doc."""\nimport torch\nX = 1\ndef f(x):\n    return x\nclass C:\n    pass\n', True),
    ("__all__ = ['f']\n__all__.append('g')\n", True),  # an export list grown in place
    ("try:\n    import numpy\nexcept ImportError:\n    numpy = None\n", True),
    ("import sys\nif sys.version_info >= (3, 11):\n    import tomllib\n", True),
    ("def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n", False),
    ("def main():\n    pass\n\nif '__main__' == __name__:\n    main()\n", False),
    ("def main():\n    pass\n\nmain()\n", False),
    ("for i in range(3):\n    pass\n", False),
    ("with open('f') as h:\n    pass\n", False),
    ("try:\n    run()\nexcept ValueError:\n    pass\n", False),
])
def test_a_module_that_only_defines_is_a_library(source, library):
    assert defines_only(ast.parse(textwrap.dedent(source)).body) is library
