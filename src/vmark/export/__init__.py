"""Export a document to HTML, PDF, Word (docx), OpenDocument (odt) or EPUB.

HTML and PDF are VMark's own rendering (the editor's Markdown, KaTeX math, highlighted code, Mermaid
diagrams) made by a headless Chromium of the export's own (:mod:`.browser`); docx, odt and epub are written by
Pandoc (:mod:`.pandoc`) with math as native equations and diagrams drawn by that Chromium. Everything read
(images) and written (the file) goes through the path scope; the file is written atomically and replaces
nothing unless asked (:mod:`.output`). The app's ``ui.export`` and ``vmark export`` both run :class:`Exporter`.
See ``docs/export.md``.

The package imports nothing here: ``vmark.settings_keys`` (every command) reads :mod:`.settings`, and only
an export needs Playwright.
"""
