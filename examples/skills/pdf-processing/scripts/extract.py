"""Prints the text of a PDF file (a sketch: the agent runs it where pypdf is installed)."""

import sys

from pypdf import PdfReader

for page in PdfReader(sys.argv[1]).pages:
    print(page.extract_text())
