#!/usr/bin/env python3
"""Print the text of a PDF, one form feed between pages."""
import sys

from pypdf import PdfReader


def main(path: str) -> None:
    reader = PdfReader(path)
    pages = [page.extract_text() or "" for page in reader.pages]
    sys.stdout.write("\f".join(pages))


if __name__ == "__main__":
    main(sys.argv[1])
