"""The composition root: the FastAPI app and the studio command."""
