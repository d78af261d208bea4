"""Pure wire types: plan arguments, events, response items, app-server shapes."""
