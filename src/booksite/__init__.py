"""The book's site machinery: the Sphinx extensions, notebook export, publishing, the PDF and the in-browser Python."""
