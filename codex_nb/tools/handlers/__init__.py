"""Built-in tool handlers, one module per tool."""
