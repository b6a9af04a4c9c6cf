import streamlit as st

st.title("Coming next")
st.info("This page is being built.")
