"""Session, event bus, turn loop, cancellation and (scripted) models."""
