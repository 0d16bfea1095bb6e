// The course's search (site/conf.py's html_search_scorer: Sphinx appends this file to
// language_data.js, which loads after searchtools.js and before the search runs).

// A page whose own title holds every word searched comes first, a lesson before any other page:
// "backward" lists "Lesson 4: Backward on a scalar" before the many sections that mention it.
Scorer.score = (result) => {
  const [docname, title, anchor, , score] = result;
  const query = (new URLSearchParams(window.location.search).get("q") || "").toLowerCase();
  const words = query.split(/\s+/).filter((word) => word.length > 0);
  const pageTitle = title.toLowerCase();
  if (anchor || words.length === 0 || title.includes(" > ")) return score;
  if (!words.every((word) => pageTitle.includes(word))) return score;
  return score + (docname.startsWith("lessons/") ? 100 : 80);
};

// The excerpts start in the page's own text, and show formulas as plain text: the page holds them as TeX (\(\frac{dy}{dx}\)), which
// MathJax typesets only on the page itself.
const TEX_SYMBOLS = {
  partial: "∂", cdot: "·", times: "×", to: "→", rightarrow: "→", leftarrow: "←", mapsto: "↦",
  sum: "Σ", prod: "Π", nabla: "∇", approx: "≈", ne: "≠", neq: "≠", le: "≤", leq: "≤", ge: "≥",
  geq: "≥", in: "∈", top: "ᵀ", infty: "∞", ldots: "…", dots: "…", cdots: "⋯", pm: "±",
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", eta: "η",
  theta: "θ", lambda: "λ", mu: "μ", pi: "π", sigma: "σ", tau: "τ", phi: "φ", varphi: "φ",
  psi: "ψ", omega: "ω", Delta: "Δ", Sigma: "Σ", quad: " ", qquad: " ",
};

const plainMath = (tex) => {
  let text = tex.trim().replace(/^\\[([]/, "").replace(/\\[)\]]$/, "").replace(/^\$+|\$+$/g, "");
  const group = "\\{((?:[^{}]|\\{[^{}]*\\})*)\\}";
  const frac = new RegExp("\\\\[dt]?frac\\s*" + group + "\\s*" + group);
  for (let i = 0; i < 20 && frac.test(text); i++) {
    text = text.replace(frac, (_, top, bottom) => {
      const wrap = (part) => (/^[\w∂.]+$/.test(part.trim()) ? part.trim() : `(${part.trim()})`);
      return `${wrap(top)}/${wrap(bottom)}`;
    });
  }
  text = text
    .replace(/\\sqrt\s*\{([^{}]*)\}/g, "√($1)")
    .replace(/\\(?:left|right|big|Big|bigg|Bigg)\b\s*\\?/g, "")
    .replace(/\\(?:mathrm|mathbf|mathit|text|textrm|operatorname|boldsymbol|mathcal|bm)\s*\{([^{}]*)\}/g, "$1")
    .replace(/\\([A-Za-z]+)/g, (whole, name) => (name in TEX_SYMBOLS ? TEX_SYMBOLS[name] : name))
    .replace(/\\[,;:! ]/g, " ")
    .replace(/\\\\|&/g, " ")
    .replace(/[{}]/g, "")
    .replace(/\s+/g, " ");
  return text.trim();
};

const htmlToTextWithTeX = Search.htmlToText;
Search.htmlToText = (htmlString, anchor) => {
  const page = new DOMParser().parseFromString(htmlString, "text/html");
  // not the language switch and the run-it-yourself box that open every page (conf.py's page_bar)
  page.querySelectorAll(".tg-bar, .tg-run").forEach((element) => element.remove());
  page.querySelectorAll(".math").forEach((formula) => {
    formula.textContent = plainMath(formula.textContent);
  });
  return htmlToTextWithTeX(page.documentElement.outerHTML, anchor);
};
