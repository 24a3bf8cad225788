"""The figures of tools/plot.py, one module per kind (see tools/plot.py's help)."""
