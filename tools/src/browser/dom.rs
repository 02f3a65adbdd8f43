//! What the model sees of a page: its URL, title, the interactive elements numbered as
//! browser-use numbers them (`[3]<input name=email …>`), and the visible text. The numbering is
//! written into the page (`data-canvasc-index`), so an action names an element by its number
//! and the browser finds it by that attribute.

use chromiumoxide::Page;
use serde_json::Value as Json;

/// The attribute that carries an element's number.
pub const INDEX_ATTR: &str = "data-canvasc-index";

/// At most this much of the page's text goes to the model.
const TEXT_LIMIT: usize = 6000;

/// Numbers the visible interactive elements and reads the page (a JSON text).
const SNAPSHOT_JS: &str = r#"(() => {
  const attr = 'data-canvasc-index';
  document.querySelectorAll('[' + attr + ']').forEach(e => e.removeAttribute(attr));
  const sel = 'a[href], button, input, select, textarea, summary, [role=button], [role=link], [onclick], [contenteditable=""], [contenteditable=true]';
  const keep = ['type', 'name', 'id', 'placeholder', 'href', 'aria-label', 'title', 'role', 'alt', 'accept', 'download'];
  const out = [];
  let i = 0;
  for (const el of document.querySelectorAll(sel)) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' && el.type === 'hidden') continue;
    const r = el.getBoundingClientRect();
    const st = getComputedStyle(el);
    const file = tag === 'input' && el.type === 'file';
    if (!file && (r.width === 0 || r.height === 0 || st.visibility === 'hidden' || st.display === 'none')) continue;
    i += 1;
    el.setAttribute(attr, String(i));
    const attrs = {};
    for (const a of keep) {
      const v = el.getAttribute(a);
      if (v) attrs[a] = v.slice(0, 120);
    }
    if ((tag === 'input' || tag === 'textarea') && !file && el.value) attrs.value = String(el.value).slice(0, 120);
    if (tag === 'select' && el.selectedOptions && el.selectedOptions.length) attrs.selected = el.selectedOptions[0].text.slice(0, 120);
    const text = tag === 'select'
      ? Array.from(el.options).map(o => o.text).join(' | ')
      : (el.innerText || '');
    out.push({index: i, tag, attrs, text: text.trim().replace(/\s+/g, ' ').slice(0, 120)});
  }
  const body = document.body ? document.body.innerText : '';
  return JSON.stringify({url: location.href, title: document.title, elements: out, text: body});
})()"#;

/// One numbered element.
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    pub index: u64,
    pub tag: String,
    pub attrs: Vec<(String, String)>,
    pub text: String,
}

/// A page as the model reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub url: String,
    pub title: String,
    pub elements: Vec<Element>,
    pub text: String,
}

impl Snapshot {
    /// `[n]<tag a=b …>text</tag>` per element.
    pub fn element_lines(&self) -> String {
        self.elements
            .iter()
            .map(|e| {
                let attrs: String = e
                    .attrs
                    .iter()
                    .map(|(k, v)| format!(" {k}={}", quote(v)))
                    .collect();
                format!("[{}]<{}{attrs}>{}</{}>", e.index, e.tag, e.text, e.tag)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn element(&self, index: u64) -> Option<&Element> {
        self.elements.iter().find(|e| e.index == index)
    }
}

fn quote(v: &str) -> String {
    if !v.is_empty() && !v.contains([' ', '"', '>', '<']) {
        v.to_string()
    } else {
        format!("{:?}", v)
    }
}

/// Reads `page` (numbering its elements anew). A page in the middle of loading has no
/// snapshot yet: the caller retries.
pub async fn snapshot(page: &Page) -> Result<Snapshot, String> {
    let text: String = page
        .evaluate(SNAPSHOT_JS)
        .await
        .map_err(|e| e.to_string())?
        .into_value()
        .map_err(|e| e.to_string())?;
    let v: Json = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let s = |k: &str| v.get(k).and_then(Json::as_str).unwrap_or("").to_string();
    let elements = v
        .get("elements")
        .and_then(Json::as_array)
        .map(|items| {
            items
                .iter()
                .map(|e| Element {
                    index: e.get("index").and_then(Json::as_u64).unwrap_or(0),
                    tag: e.get("tag").and_then(Json::as_str).unwrap_or("").into(),
                    attrs: e
                        .get("attrs")
                        .and_then(Json::as_object)
                        .map(|m| {
                            m.iter()
                                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                                .collect()
                        })
                        .unwrap_or_default(),
                    text: e.get("text").and_then(Json::as_str).unwrap_or("").into(),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut body = s("text");
    if body.chars().count() > TEXT_LIMIT {
        body = body.chars().take(TEXT_LIMIT).collect::<String>() + "…";
    }
    Ok(Snapshot {
        url: s("url"),
        title: s("title"),
        elements,
        text: body,
    })
}

/// The selector of element `index`.
pub fn selector(index: u64) -> String {
    format!("[{INDEX_ATTR}=\"{index}\"]")
}
