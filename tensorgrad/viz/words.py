"""The words `tg.viz` prints around its numbers, in English and in Chinese.

    tg.viz.use_language("zh")   # trace_backward's table, explain() and the stepper in Chinese
    tg.viz.use_language("en")   # back to English (the default)

The Chinese edition of the lessons (lessons/zh/, written by tools/translate.py) calls
`use_language("zh")` in its setup cell; nothing else changes with the language: the numbers, the
node names (`MulBackward0`) and the code-like parts (`x.grad += 2`, `x.grad = 2`, `a ← 2`) are the same in both.
Each entry is a `str.format` template; the English ones are exactly what the trace printed before
it had a second language.

`use_language("zh")` also lets matplotlib draw Chinese labels: it puts the first installed CJK
font (WenQuanYi Micro Hei, Noto Sans CJK, ...) in front of matplotlib's sans-serif list. Where no
such font is installed the labels show as boxes, and matplotlib's "Glyph ... missing" warnings
are silenced, so a notebook prints the same on every machine.
"""

import warnings

WORDS = {
    "en": {
        "step": "step {number}: {text}",
        "step of": "step {number} of {count}: {text}",
        "operation": "{node}: {out} = {expression}",
        "steps": "{count} step",
        "steps plural": "{count} steps",
        "trace": "Trace({count}, root={root})",
        "stepper": "BackwardStepper({count}, root={root})",
        "header": ("#", "node", "tensor", "grad in", "sends"),
        "accumulate": "AccumulateGrad: adds grad {leaf} into {leaf}.grad",
        "store": "AccumulateGrad: stores grad {leaf} in {leaf}.grad",
        "grad": "grad {name}",
        "backward of": "{node}.backward(grad {out})",
        "summed": ", summed to shape {shape}",
        "const": "const",
        "slider": "step",
        "previous": "◀ prev",
        "next": "next ▶",
        "graph": "Graph({view}: {nodes}, {edges}, root={root})",
        "view forward": "forward",
        "view backward": "backward",
        "nodes": "{count} node",
        "nodes plural": "{count} nodes",
        "edges": "{count} edge",
        "edges plural": "{count} edges",
        "hooks": "{count} hook",
        "hooks plural": "{count} hooks",
        "hook line": "{hooks} (register_hook)",
        "legend": "legend",
        "legend forward": "recorded by the forward pass",
        "legend backward": "recorded by a backward pass (create_graph=True)",
        "more": "... {count} more operations",
        "showing": "Showing {shown} of {total} operations: draw(..., max_nodes=None) shows all.",
        "edge grad": "grad {values}",
        "saved": "saved {name}",
        "freed": "freed by backward",
        "leaf note": ("{label} is a leaf: no operation made it, so there is no graph to draw "
                      "(backward from a result that uses it fills its .grad)."),
        "no graph note": ("{label} has no grad_fn: it was computed without recording a graph "
                          "(no input requires grad, or inside no_grad())."),
        "reopened": ("This stepper was saved with the notebook: it shows the step it was on, but its "
                     "buttons only work after you run this cell again (Shift+Enter)."),
    },
    "zh": {
        "step": "第 {number} 步　{text}",
        "step of": "第 {number} 步（共 {count} 步）　{text}",
        "operation": "{node}：{out} = {expression}",
        "steps": "共 {count} 步",
        "steps plural": "共 {count} 步",
        "trace": "Trace({count}，根节点 {root})",
        "stepper": "BackwardStepper({count}，根节点 {root})",
        "header": ("#", "节点", "张量", "收到的梯度", "发出"),
        "accumulate": "AccumulateGrad：把 {leaf} 的梯度加进 {leaf}.grad",
        "store": "AccumulateGrad：把 {leaf} 的梯度存进 {leaf}.grad",
        "grad": "{name} 的梯度",
        "backward of": "{node}.backward({out} 的梯度)",
        "summed": "，按形状 {shape} 求和",
        "const": "常数",
        "slider": "步",
        "previous": "◀ 上一步",
        "next": "下一步 ▶",
        "graph": "Graph({view}：{nodes}，{edges}，根节点 {root})",
        "view forward": "前向",
        "view backward": "反向",
        "nodes": "{count} 个节点",
        "nodes plural": "{count} 个节点",
        "edges": "{count} 条边",
        "edges plural": "{count} 条边",
        "hooks": "{count} 个钩子",
        "hooks plural": "{count} 个钩子",
        "hook line": "{hooks}（register_hook）",
        "legend": "图例",
        "legend forward": "由前向计算记录",
        "legend backward": "由反向传播记录（create_graph=True）",
        "more": "……还有 {count} 个运算",
        "showing": "只画出 {total} 个运算中的 {shown} 个：draw(..., max_nodes=None) 画出全部。",
        "edge grad": "梯度 {values}",
        "saved": "保存的 {name}",
        "freed": "已被 backward 释放",
        "leaf note": "{label} 是叶子节点：它不是由运算得到的，所以没有图可画（从用到它的结果反向传播，会填好它的 .grad）。",
        "no graph note": "{label} 没有 grad_fn：计算它时没有记录计算图（没有输入需要梯度，或者在 no_grad() 里面）。",
        "reopened": "这个逐步演示是随笔记本保存下来的：它显示保存时所在的那一步，但要重新运行这个单元格"
                    "（Shift+Enter）之后，按钮才能用。",
    },
}
LANGUAGES = tuple(WORDS)
#: Fonts with Chinese characters, the first installed one is used (Debian: fonts-wqy-microhei).
CJK_FONTS = ("WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Noto Sans CJK SC", "Noto Sans SC",
             "Source Han Sans SC", "SimHei", "Microsoft YaHei", "PingFang SC")

_language = "en"


def use_language(language):
    """Print the trace, its explanation and the stepper in `language` ("en" or "zh")."""
    global _language
    if language not in WORDS:
        raise ValueError(f"tg.viz.use_language: no words for {language!r}; choose one of {LANGUAGES}")
    _language = language
    if language == "zh":
        _matplotlib_speaks_chinese()


def language():
    """The language tg.viz prints in: "en" or "zh"."""
    return _language


def word(key, **fields):
    """The entry `key` in the current language, with `fields` filled in."""
    text = WORDS[_language][key]
    return text.format(**fields) if fields else text


def count_of(noun, count):
    """`noun` ("steps", "nodes", "edges", "hooks") with its number: "1 step", "5 steps", "共 5 步"."""
    return word(noun if count == 1 else f"{noun} plural", count=count)


def width(text):
    """How many columns `text` takes in a fixed-width font: a Chinese character takes two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text, columns):
    return text + " " * (columns - width(text))


def chinese_fonts():
    """The fonts of CJK_FONTS that matplotlib finds on this machine (none without matplotlib)."""
    try:
        from matplotlib import font_manager
    except ImportError:
        return []
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return [name for name in CJK_FONTS if name in installed]


def _matplotlib_speaks_chinese():
    try:
        from matplotlib import rcParams
    except ImportError:  # no matplotlib, no pictures to label
        return
    found = chinese_fonts()
    if found:
        rcParams["font.sans-serif"] = found[:1] + [f for f in rcParams["font.sans-serif"] if f not in found]
        rcParams["font.family"] = "sans-serif"
        rcParams["axes.unicode_minus"] = False  # CJK fonts often lack U+2212 MINUS SIGN
    else:
        # no Chinese font: the labels show as boxes, without a warning per character (a plain
        # label warns "Glyph ... missing from font", one with $math$ in it logs "Font 'default'
        # does not have a glyph" through matplotlib.mathtext's logger)
        # (logging is imported here, not at the top: matplotlib has loaded it by now, and a
        # plain `import tensorgrad` would otherwise pay for it: a fifth of its import's growth
        # between 0956426 and 788e259, bench/README.md)
        import logging

        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)
        logging.getLogger("matplotlib.mathtext").setLevel(logging.ERROR)
