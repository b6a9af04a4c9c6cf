"""Plotly figure builders: data in, figure out. Shared by the app and notebooks."""
