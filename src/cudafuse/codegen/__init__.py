"""Code generation: text splicing over the user's original source."""
