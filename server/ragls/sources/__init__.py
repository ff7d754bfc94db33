"""Workspace sources: which files are indexed (`walk`) and how one becomes a `Document` (`load`)."""
