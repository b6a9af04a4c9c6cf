"""Streamlit helpers shared by the pages (the only code besides pages/ that imports streamlit)."""
