"""Python I/O and notices in traced code (print, logger calls, warnings.warn): guarded, deferred past the graph, or (a `*_once` notice) run while Dynamo traces."""
