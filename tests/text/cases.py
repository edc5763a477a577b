"""The table of CJK formatting cases: input -> exact output, per rule, protected construct and Markdown construct.

Each case runs ``cjk-format`` with the default rules unless it says otherwise. Every output is also checked
to be a fixed point (formatting it again changes nothing) and to keep the Markdown structure and every
protected construct of the input (see ``test_cases.py``).
"""

from __future__ import annotations

from typing import NamedTuple

from vmark.text import CjkRules

DEFAULT = CjkRules()
CORNER = CjkRules(quote_style="corner")
GUILLEMETS = CjkRules(quote_style="guillemets")


class Case(NamedTuple):
    name: str
    source: str
    expected: str
    kind: str = "cjk-format"
    rules: CjkRules = DEFAULT


def _same(name: str, source: str, kind: str = "cjk-format", rules: CjkRules = DEFAULT) -> Case:
    """A case whose text must come out unchanged."""
    return Case(name, source, source, kind, rules)


SPACING = [
    Case("spacing-han-latin", "学习Python编程", "学习 Python 编程"),
    Case("spacing-digits", "我有3个苹果", "我有 3 个苹果"),
    Case("spacing-year", "2024年发布", "2024 年发布"),
    _same("spacing-already-spaced", "学习 Python 编程"),
    Case("spacing-hiragana", "これはPythonです", "これは Python です"),
    Case("spacing-katakana", "プログラミングRust入門", "プログラミング Rust 入門"),
    Case("spacing-hangul", "한국어Python 문서", "한국어 Python 문서"),
    Case("spacing-hangul-word-after-latin", "Python프로그래밍", "Python 프로그래밍"),
    _same("spacing-korean-particle", "VMark에는 기능이 있다"),
    _same("spacing-korean-particle-chain", "Python으로는 좋다"),
    _same("spacing-korean-counter", "3개 있다, 2024년에 출시"),
    Case("spacing-percent", "增长了50%的用户", "增长了 50% 的用户"),
    Case("spacing-currency-sign", "价格$100元", "价格 $100 元"),
    Case("spacing-cplusplus", "学习C++编程和C#语言", "学习 C++ 编程和 C# 语言"),
    Case("spacing-greek", "α粒子", "α 粒子"),
    Case("spacing-accented-latin", "喝café很好", "喝 café 很好"),
    Case("spacing-single-letter", "中a中", "中 a 中"),
    Case("spacing-across-strong", "中文**English**中文", "中文 **English** 中文"),
    Case("spacing-after-strong-close", "**中文**English", "**中文** English"),
    Case("spacing-across-em", "中文*English*", "中文 *English*"),
    Case("spacing-inside-strike", "中文~~删除English~~", "中文~~删除 English~~"),
    Case("spacing-around-inline-code", "使用`npm install`命令", "使用 `npm install` 命令"),
    Case("spacing-around-math", "公式$E=mc^2$很有名", "公式 $E=mc^2$ 很有名"),
    Case("spacing-around-autolink", "访问<https://example.com>获取", "访问 <https://example.com> 获取"),
    Case("spacing-around-link", "请看[文档Docs](https://x.com)获取", "请看[文档 Docs](https://x.com) 获取"),
    Case("spacing-before-latin-link", "请看[Docs](https://x.com)", "请看 [Docs](https://x.com)"),
    Case("spacing-latin-before-cjk-link", "Hello[世界](https://x.com)", "Hello [世界](https://x.com)"),
    _same("spacing-not-across-html", "中文<b>English</b>中文"),
    _same("spacing-not-across-entity", "中文&amp;English"),
    Case("spacing-tabs-and-newlines-kept", "中文\tEnglish\n中文", "中文\tEnglish\n中文"),
]

PUNCTUATION = [
    Case("punctuation-comma", "你好,世界", "你好，世界"),
    Case("punctuation-question", "你好吗?", "你好吗？"),
    Case("punctuation-exclamation", "太好了!", "太好了！"),
    Case("punctuation-colon", "注意:这里", "注意：这里"),
    Case("punctuation-semicolon", "第一;第二", "第一；第二"),
    Case("punctuation-period", "结束了.", "结束了。"),
    Case("punctuation-run", "真的吗?!", "真的吗？！"),
    Case("punctuation-space-after-absorbed", "你好, world", "你好，world"),
    Case("punctuation-space-before-absorbed", "中文 ,世界", "中文，世界"),
    Case("punctuation-latin-before-cjk", "Hello,世界", "Hello，世界"),
    _same("punctuation-spaced-both-sides", "中文 , English"),
    _same("punctuation-ellipsis-dots", "等等...然后"),
    Case("punctuation-file-extension", "打开文件.md看看", "打开文件.md 看看"),
    _same("punctuation-latin-sentence", "Hello, world. 中文"),
    _same("punctuation-numbered-heading", "## 1. 第一章"),
    Case("punctuation-after-strong", "**重要**,请注意", "**重要**，请注意"),
    Case("punctuation-after-link", "[文档](https://x.com),然后", "[文档](https://x.com)，然后"),
    Case("punctuation-japanese", "こんにちは,世界", "こんにちは，世界"),
    _same("punctuation-korean-keeps-ascii", "안녕하세요, 세계."),
    Case("punctuation-hard-break-kept", "你好,  \n世界", "你好，  \n世界"),
    Case("punctuation-time-protected", "会议在12:30开始", "会议在 12:30 开始"),
    Case("punctuation-decimal-protected", "圆周率约3.14左右", "圆周率约 3.14 左右"),
    Case("punctuation-thousands-protected", "共1,000人", "共 1,000 人"),
    Case("punctuation-version-protected", "升级到v1.2.3版本", "升级到 v1.2.3 版本"),
    Case("punctuation-email-protected", "联系admin@example.com获取", "联系 admin@example.com 获取"),
    Case("punctuation-domain-protected", "访问example.com,然后", "访问 example.com，然后"),
    Case("punctuation-url-protected", "见https://a.com/x?q=1,2获取", "见 https://a.com/x?q=1,2 获取"),
    Case("punctuation-url-trailing-period", "见https://a.com/x.", "见 https://a.com/x."),
    Case("punctuation-url-in-sentence", "网址:https://a.com/b,请查看", "网址：https://a.com/b，请查看"),
    Case("punctuation-shortcode-protected", "好的:smile:太棒了", "好的 :smile: 太棒了"),
]

FULLWIDTH = [
    Case("fullwidth-digits", "１２３４", "1234"),
    Case("fullwidth-letters", "ＡＢＣ中文", "ABC 中文"),
    Case("fullwidth-in-sentence", "价格是１００元", "价格是 100 元"),
    Case("fullwidth-lowercase", "ｐｙｔｈｏｎ编程", "python 编程"),
    _same("fullwidth-in-inline-code", "中文 `ＡＢＣ` 中文"),
]

BRACKETS = [
    Case("brackets-cjk", "(注意)", "（注意）"),
    Case("brackets-in-sentence", "请看(注意)部分", "请看（注意）部分"),
    Case("brackets-spaces-dropped", "见 (注意) 一节", "见（注意）一节"),
    _same("brackets-latin-kept", "他叫汤姆(Tom)"),
    Case("brackets-mixed", "(Python 编程)", "（Python 编程）"),
    Case("brackets-nested", "(中(文))", "（中（文））"),
    _same("brackets-korean-kept", "(주의) 확인"),
    _same("brackets-link-destination", "[文档](https://x.com/a_(b))"),
    Case("brackets-then-punctuation", "(注意),然后", "（注意），然后"),
]

DASH = [
    Case("dash-between-cjk", "原因--结果", "原因 —— 结果"),
    Case("dash-spaced", "原因 -- 结果", "原因 —— 结果"),
    Case("dash-em-dashes-spaced", "原因——结果", "原因 —— 结果"),
    Case("dash-three-hyphens", "原因---结果", "原因 —— 结果"),
    Case("dash-after-bracket", "（原因）--结果", "（原因）—— 结果"),
    Case("dash-across-strong", "**原因**--结果", "**原因** —— 结果"),
    Case("dash-option-not-cjk", "使用--verbose参数", "使用--verbose 参数"),
]

ELLIPSIS = [
    Case("ellipsis-spaced", "等等. . .", "等等..."),
    Case("ellipsis-spaced-wide", "然后.  .  . 结束", "然后... 结束"),
    _same("ellipsis-already", "等等..."),
]

LIMIT = [
    Case("limit-exclamation", "太好了！！！", "太好了！"),
    Case("limit-question", "真的吗？？", "真的吗？"),
    Case("limit-half-width-run", "太好了!!!", "太好了！"),
    Case("limit-two", "太好了！！！", "太好了！！", rules=CjkRules(punctuation_limit=2)),
    _same("limit-off", "太好了！！！", rules=CjkRules(punctuation_limit=0)),
    _same("limit-mixed-marks-kept", "真的？！"),
    Case("limit-commas", "然后，，再说", "然后，再说"),
]

QUOTES = [
    Case("quotes-double", '他说"你好"', "他说“你好”"),
    Case("quotes-whole", '"中文"', "“中文”"),
    Case("quotes-single", "他说'你好'", "他说‘你好’"),
    _same("quotes-latin-pair-kept", '中文段落 "English" 结束'),
    Case("quotes-latin-next-to-cjk", '中文"English"中文', "中文“English”中文"),
    Case("quotes-two-pairs", '"中文"和"English"', "“中文”和“English”"),
    Case("quotes-apostrophe", "我don't知道", "我 don't 知道"),
    Case("quotes-possessive", "it's很好", "it's 很好"),
    Case("quotes-prime", "他身高5'10\"左右", "他身高 5'10\"左右"),
    Case("quotes-decade", "'90s的音乐", "'90s 的音乐"),
    Case("quotes-digit-inside-pair", '他说"第3"', "他说“第 3”"),
    Case("quotes-corner", '他说"你好"', "他说「你好」", rules=CORNER),
    Case("quotes-corner-needs-han", '他说"hello"', "他说“hello”", rules=CORNER),
    Case("quotes-corner-nested", "他说\"她说'你好'\"", "他说「她说『你好』」", rules=CORNER),
    Case("quotes-corner-from-curly", "他说“你好”", "他说「你好」", rules=CORNER),
    Case("quotes-corner-kana-only", '彼は"こんにちは"と言った', "彼は“こんにちは”と言った", rules=CORNER),
    Case("quotes-guillemets", '他说"你好"', "他说«你好»", rules=GUILLEMETS),
    Case("quotes-guillemets-single", "他说'你好'", "他说‹你好›", rules=GUILLEMETS),
    _same("quotes-orphan-kept", '他说"你好'),
    Case("quotes-korean", '그는"안녕"이라고', "그는“안녕”이라고"),
    Case("quotes-colon-before", '他说:"你好"', "他说：“你好”"),
    Case("quotes-across-strong", '他说**"你好"**', "他说**“你好”**"),
    _same("quotes-off", '他说"你好"', rules=CjkRules(quotes=False)),
    Case("quotes-in-code-kept", '他说`"x"`', '他说 `"x"`'),
    _same("quotes-in-link-title-kept", '[他说](https://x.com "标题,Title")'),
]

CLEANUP = [
    Case("cleanup-collapse", "中文   English", "中文 English"),
    Case("cleanup-collapse-cjk", "中文  中文", "中文 中文"),
    Case("cleanup-trailing-space-mid-paragraph", "第一行 \n第二行", "第一行\n第二行"),
    _same("cleanup-hard-break-kept", "第一行  \n第二行"),
    _same("cleanup-backslash-hard-break-kept", "第一行\\\n第二行"),
    Case("cleanup-trailing-at-paragraph-end", "中文结尾   ", "中文结尾"),
    Case("cleanup-trailing-two-at-paragraph-end", "中文结尾  \n\n下一段", "中文结尾\n\n下一段"),
    Case("cleanup-trailing-tab", "中文\t\n下一行", "中文\n下一行"),
    Case("cleanup-heading-trailing", "# 标题  ", "# 标题"),
    Case("cleanup-slash", "A / B 的比较", "A/B 的比较"),
    Case("cleanup-slash-one-side", "输入 /输出", "输入/输出"),
    Case("cleanup-currency", "$ 100的价格", "$100 的价格"),
    Case("cleanup-space-before-fullwidth", "你好 ，世界", "你好，世界"),
    Case("cleanup-space-after-fullwidth", "你好， 世界。 再见", "你好，世界。再见"),
    Case("cleanup-space-around-fullwidth-bracket", "中文 （注释） 中文", "中文（注释）中文"),
    _same("cleanup-leading-indent-kept", "第一行\n   第二行"),
    _same("cleanup-off", "中文   English ", rules=CjkRules(cleanup=False, spacing=False)),
]

PROTECTED = [
    Case(
        "protect-fenced-code",
        "前面Text\n\n```python\n学习Python编程,你好\n```\n\n后面Text",
        "前面 Text\n\n```python\n学习Python编程,你好\n```\n\n后面 Text",
    ),
    Case(
        "protect-tilde-fence",
        "~~~\n学习Python编程\n~~~\n后面Text",
        "~~~\n学习Python编程\n~~~\n后面 Text",
    ),
    Case("protect-indented-code", "说明Text\n\n    学习Python编程,你好\n", "说明 Text\n\n    学习Python编程,你好\n"),
    Case("protect-inline-code", "用`学习Python,你好`吧", "用 `学习Python,你好` 吧"),
    Case("protect-double-backtick-code", "用``a `中文` b``吧", "用 ``a `中文` b`` 吧"),
    _same("protect-unclosed-backtick", "中文`没有结束"),
    _same("protect-link-url", "[链接](https://example.com/中文,路径)"),
    Case("protect-link-title", '[链接Link](/url "标题Title,你好")', '[链接 Link](/url "标题Title,你好")'),
    Case(
        "protect-image-url-alt-formatted",
        "![图片Image](https://x.com/中文a.png)",
        "![图片 Image](https://x.com/中文a.png)",
    ),
    _same("protect-autolink", "<https://例子.com/中文Path,a>"),
    _same("protect-email-autolink", "联系 <admin@例子.com>"),
    _same("protect-html-block", "<div>\n学习Python编程,你好\n</div>"),
    Case(
        "protect-html-inline-attributes",
        '中文<span title="你好,世界">内容Text</span>',
        '中文<span title="你好,世界">内容 Text</span>',
    ),
    _same("protect-html-comment", "中文<!-- 注释,Note -->中文"),
    Case(
        "protect-front-matter",
        "---\ntitle: 学习Python编程,你好\n---\n\n正文Text",
        "---\ntitle: 学习Python编程,你好\n---\n\n正文 Text",
    ),
    Case("protect-math-inline", "公式$a,b中c$中", "公式 $a,b中c$ 中"),
    _same("protect-math-block", "$$\n学习Python,你好\n$$"),
    _same("protect-math-double-inline", "中文 $$a,中b$$ 中文"),
    _same("protect-dollar-amounts-are-text", "价格 $5 和 $6 元"),
    _same("protect-escaped-comma", "价格\\,很贵"),
    _same("protect-escaped-stars", "中文\\*English\\*"),
    _same("protect-entity", "中文&nbsp;English"),
    _same("protect-numeric-entity", "中文&#44;世界"),
    _same("protect-reference-definition", '[参考]: https://x.com "标题Title,你好"\n\n见[参考]'),
    Case(
        "protect-full-reference-text-formatted",
        "[文档Docs][ref]\n\n[ref]: https://x.com",
        "[文档 Docs][ref]\n\n[ref]: https://x.com",
    ),
    _same("protect-collapsed-reference-key", "[文档Docs][]\n\n[文档Docs]: https://x.com"),
    _same("protect-shortcut-reference-key", "见[文档Docs]\n\n[文档Docs]: https://x.com"),
    Case("protect-undefined-reference-is-text", "见[文档Docs]", "见[文档 Docs]"),
    Case(
        "protect-footnote-reference",
        "中文[^1]结尾\n\n[^1]: 注释Note内容",
        "中文[^1]结尾\n\n[^1]: 注释 Note 内容",
    ),
    Case("protect-inline-footnote", "中文^[注释Note]结尾", "中文^[注释 Note] 结尾"),
    _same("protect-placeholder-characters", "中文\ufdd0English"),
    _same("protect-paragraph-like-a-definition", "[ref]: /u ,中文"),
]

MARKDOWN = [
    Case("md-atx-heading", "# 标题Title", "# 标题 Title"),
    Case("md-atx-heading-closing", "## 标题Title ##", "## 标题 Title ##"),
    Case("md-setext-heading", "标题Title\n===", "标题 Title\n==="),
    Case("md-bullet-list", "- 第一项item\n- 第二项item", "- 第一项 item\n- 第二项 item"),
    Case("md-ordered-list", "1. 第一步step\n2. 第二步step", "1. 第一步 step\n2. 第二步 step"),
    Case("md-nested-list", "- 外层outer\n  - 内层inner", "- 外层 outer\n  - 内层 inner"),
    Case("md-list-continuation", "- 项目item\n  继续text", "- 项目 item\n  继续 text"),
    Case("md-list-lazy-continuation", "- 项目item\n继续text", "- 项目 item\n继续 text"),
    Case("md-task-list-text", "- [ ] 任务Task", "- [ ] 任务 Task"),
    Case("md-blockquote", "> 引用Quote内容", "> 引用 Quote 内容"),
    Case("md-nested-blockquote", "> > 引用Quote", "> > 引用 Quote"),
    Case("md-blockquote-lazy", "> 第一行line\n第二行line", "> 第一行 line\n第二行 line"),
    Case("md-blockquote-list", "> - 引用列表item", "> - 引用列表 item"),
    Case(
        "md-table",
        "| 名称Name | 说明 |\n|---|---|\n| 工具Tool | 很好,不错 |",
        "| 名称 Name | 说明 |\n|---|---|\n| 工具 Tool | 很好，不错 |",
    ),
    Case(
        "md-table-no-outer-pipes",
        "名称Name | 说明\n---|---\n工具Tool | 很好",
        "名称 Name | 说明\n---|---\n工具 Tool | 很好",
    ),
    Case(
        "md-table-escaped-pipe-cell-left-alone",
        "| a \\| b中文Text | 中文Text |\n|---|---|",
        "| a \\| b中文Text | 中文 Text |\n|---|---|",
    ),
    _same("md-table-alignment-row", "| 中文 | B |\n|:--|--:|"),
    Case("md-table-in-blockquote", "> | 中文A | B |\n> |---|---|", "> | 中文 A | B |\n> |---|---|"),
    Case("md-emphasis-inside", "这是*斜体Italic*文字", "这是*斜体 Italic* 文字"),
    Case("md-strong-inside", "**粗体English**", "**粗体 English**"),
    _same("md-underscore-not-emphasis", "中文__English__"),
    Case("md-snake-case", "使用snake_case变量", "使用 snake_case 变量"),
    Case("md-link-with-emphasis", "[**粗体Bold**链接](u)", "[**粗体 Bold** 链接](u)"),
    Case("md-image-in-link", "[![图标Icon](i.png)](https://x.com)说明", "[![图标 Icon](i.png)](https://x.com) 说明"),
    _same("md-thematic-break", "中文\n\n---\n\n中文"),
    Case(
        "md-code-in-list",
        "- 步骤Step\n\n  ```\n  学习Python\n  ```",
        "- 步骤 Step\n\n  ```\n  学习Python\n  ```",
    ),
    Case("md-heading-in-list", "- # 标题Title", "- # 标题 Title"),
    Case("md-footnote-definition-multi", "[^a]: 注释Note\n    继续More", "[^a]: 注释 Note\n    继续 More"),
]

DOCUMENTS = [
    Case(
        "doc-mixed",
        "---\ntitle: 文档Doc\n---\n\n# 介绍Intro\n\n学习Python编程,很有趣!请访问https://python.org获取更多信息.\n\n"
        "- 安装`pip install vmark`命令\n- 运行(注意)测试\n\n```bash\necho 中文English,你好\n```\n\n"
        '> 他说"你好"--然后离开了\n',
        "---\ntitle: 文档Doc\n---\n\n# 介绍 Intro\n\n"
        "学习 Python 编程，很有趣！请访问 https://python.org 获取更多信息。\n\n"
        "- 安装 `pip install vmark` 命令\n- 运行（注意）测试\n\n```bash\necho 中文English,你好\n```\n\n"
        "> 他说“你好”—— 然后离开了\n",
    ),
    Case(
        "doc-crlf",
        "学习Python\r\n\r\n你好,世界\r\n",
        "学习 Python\r\n\r\n你好，世界\r\n",
    ),
    Case("doc-lone-cr", "学习Python\r\r你好,世界", "学习 Python\r\r你好，世界"),
    _same("doc-pure-latin", "Hello,world  \nA / B $ 100\n\n(Tom) -- done. . .\n"),
    Case(
        "doc-latin-paragraph-untouched",
        "中文段落Text\n\nEnglish paragraph , with  spaces / slash. . .",
        "中文段落 Text\n\nEnglish paragraph , with  spaces / slash. . .",
    ),
    Case(
        "doc-japanese",
        "# はじめにIntro\n\nこの機能はPythonで書かれています.詳しくは(説明)を見てください!",
        "# はじめに Intro\n\nこの機能は Python で書かれています。詳しくは（説明）を見てください！",
    ),
    Case(
        "doc-korean",
        "# 소개Intro\n\n한국어Python 문서입니다. VMark에는 (새로운) 기능이 3개 있습니다!",
        "# 소개 Intro\n\n한국어 Python 문서입니다. VMark에는 (새로운) 기능이 3개 있습니다!",
    ),
    _same("doc-empty", ""),
    _same("doc-only-blank-lines", "\n\n  \n"),
    Case("doc-no-final-newline-kept", "中文A", "中文 A"),
    Case("doc-final-newlines-kept", "中文A\n\n\n", "中文 A\n\n\n"),
    _same("doc-already-formatted", "学习 Python 编程，很有趣！请访问 https://python.org 获取更多信息。\n"),
]

KINDS = [
    Case("kind-spacing-only", "学习Python编程,你好！！！(注意)", "学习 Python 编程,你好！！！(注意)", "cjk-spacing"),
    Case(
        "kind-punctuation-only",
        "学习Python编程,你好！！！(注意)",
        "学习Python编程，你好！！！(注意)",
        "cjk-punctuation",
    ),
    Case("kind-punctuation-absorbs-space", "你好, world", "你好，world", "cjk-punctuation"),
    _same("kind-spacing-ignores-quotes", '他说"你好"', "cjk-spacing"),
    Case("kind-spacing-ignores-settings", "学习Python", "学习 Python", "cjk-spacing", CjkRules.none()),
    _same("kind-format-all-off", "学习Python编程,你好！！！(注意)", rules=CjkRules.none()),
    Case("kind-format-without-spacing", "学习Python编程,", "学习Python编程，", rules=CjkRules(spacing=False)),
]

# inputs on which pangu (``pangu.space_text``) or autocorrect go wrong: emphasis markers, link ends, code and
# URLs, escapes and HTML attributes
PEER_FAILURES = [
    Case("peer-strong-with-latin", "**粗体English**", "**粗体 English**"),
    Case("peer-strong-then-latin", "**粗体**English", "**粗体** English"),
    Case("peer-em-markers", "中文*斜体*English", "中文*斜体* English"),
    Case("peer-link-end", "[链接Link](https://x.com/a_b)后面", "[链接 Link](https://x.com/a_b) 后面"),
    _same("peer-code-span-content", "`变量a中b` 和 `x=中文1`"),
    _same("peer-url-with-cjk-path", "见 https://zh.wikipedia.org/wiki/汉字 和 https://a.cn/?q=中文"),
    _same("peer-escape", "价格\\,很贵"),
    _same("peer-html-attribute", '<span title="中文a">x</span>'),
    Case("peer-quote-spacing", '他说"你好"', "他说“你好”"),
    _same("peer-fenced-code", '```\nprint("中文a",b)\n```'),
]

CASES: list[Case] = [
    *SPACING,
    *PUNCTUATION,
    *FULLWIDTH,
    *BRACKETS,
    *DASH,
    *ELLIPSIS,
    *LIMIT,
    *QUOTES,
    *CLEANUP,
    *PROTECTED,
    *MARKDOWN,
    *DOCUMENTS,
    *KINDS,
    *PEER_FAILURES,
]
