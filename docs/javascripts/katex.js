// Render the formulas of every page with KaTeX, served with the site (no network needed).
// pymdownx.arithmatex (generic mode) wraps each formula in \( \) or \[ \].
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true }
    ],
    throwOnError: false
  })
})
