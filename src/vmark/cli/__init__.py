"""The ``vmark`` command line: one module per command family, each registering its own commands.

:mod:`.main` builds the parser from the families and runs the chosen command (``vmark = vmark.cli.main:main``);
:mod:`.commands` is how a family registers, :mod:`.bridge` how a command asks the running app as the person,
:mod:`.output` how it prints (``--json``, tables, ``vmark: ...`` refusals), :mod:`.progress` its progress bar.
"""
