"""Every package's settings, registered in the one settings table (``storage.settings``).

Imported by the app and by the command line, so both know every key: the table itself cannot import
the packages that own settings (they sit above storage).
"""

from __future__ import annotations

from .coherence import checker
from .export import settings as export_settings
from .storage import settings
from .text import SETTING_KEYS as CJK_SETTING_KEYS
from .text import setting_error as cjk_setting_error

settings.register(CJK_SETTING_KEYS, cjk_setting_error)
settings.register(checker.SETTING_KEYS, checker.setting_error)
settings.register(export_settings.SETTING_KEYS, export_settings.setting_error)
