"""Guards and asserts on tensor values: `if <cond>: raise` and `assert` lowered to `torch._assert_async`, and asserts Dynamo cannot lower rewritten to ones it can."""
