"""Fuzz targets for the argv grammar, the lane rewrites, the shell checker and the hook."""
