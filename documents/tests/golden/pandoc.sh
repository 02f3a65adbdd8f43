#!/bin/sh
# Regenerates the HTML, Markdown and plain-text expectations with pandoc itself, as RAGFlow's
# DocGenerator calls it (`pypandoc.convert_text(source, to=…, format="markdown")`, the source
# being the `Generated:` line, a blank line and the content when add_timestamp is on).
# Needs pandoc (Debian: apt-get install pandoc). Run from documents/tests.
set -eu
command -v pandoc >/dev/null || { echo "pandoc is not installed" >&2; exit 1; }
ts=$(python3 -c 'import json;print(json.load(open("cases/cases.json"))["timestamp"])')
pandoc --version | head -1 > golden/pandoc-version.txt
for md in cases/*.md; do
  name=$(basename "$md" .md)
  stamp=$(python3 -c 'import json,sys;print(json.load(open("cases/cases.json"))["cases"].get(sys.argv[1],{}).get("add_timestamp",True))' "$name")
  src=$(mktemp)
  if [ "$stamp" = True ]; then printf '%s\n\n' "$ts" > "$src"; fi
  cat "$md" >> "$src"
  for to in plain markdown html; do
    case $to in plain) ext=txt;; markdown) ext=md;; html) ext=html;; esac
    pandoc -f markdown -t "$to" "$src" -o "golden/$name.pandoc.$ext"
  done
  rm -f "$src"
done
