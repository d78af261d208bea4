"""The names of Code Mode's two tools, in a module light enough to import before Code Mode is used."""

EXEC_TOOL_NAME = "exec"
WAIT_TOOL_NAME = "wait"
