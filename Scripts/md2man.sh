#!/bin/sh
# md2man.sh PAGE.md > PAGE: the man pages in docs/*.[18].md, which use a small subset of
# pandoc's Markdown, as roff for man(7). POSIX awk only, so building the Debian package needs no
# pandoc. The subset:
#   % NAME(SECTION) SOURCE | MANUAL     title line (first line)
#   # HEADING                           section
#   **bold**, *italic*                  inline (not nested)
#   TERM / ": definition" / "  more"    definition list (.TP)
#   4-space indented lines              literal block
#   a blank line                        paragraph break
# Minus signs: "-" that starts a word (options) and every "-" in a literal block become "\-";
# other hyphens stay hyphens.
set -eu
[ $# -eq 1 ] || { echo "usage: md2man.sh PAGE.md" >&2; exit 2; }

awk '
function escape(s) {
  gsub(/\\/, "\\e", s)
  gsub(/…/, "...", s)
  return s
}
# Options: a run of "-" at the start of a word, after a font change included, is minus signs.
function minus(s,   out, m, k) {
  out = ""
  while (match(s, /(^|[ [(|,]|\\f[BI])-+/)) {
    start = RSTART; len = RLENGTH
    m = substr(s, start, len)
    k = match(m, /-+$/)
    run = substr(m, k)
    gsub(/-/, "\\-", run)
    out = out substr(s, 1, start - 1) substr(m, 1, k - 1) run
    s = substr(s, start + len)
  }
  return out s
}
# **bold** and *italic*, left to right: inside italic a "*" closes it, inside bold "**" does,
# so "**gpsd://***HOST***:***PORT*" is bold, italic, bold, italic as in pandoc.
function spans(s,   out, font, c) {
  out = ""; font = ""
  while (s != "") {
    if (substr(s, 1, 2) == "**" && font != "I") {
      out = out (font == "B" ? "\\fR" : "\\fB"); font = (font == "B" ? "" : "B")
      s = substr(s, 3)
    } else if (substr(s, 1, 1) == "*" && font != "B") {
      out = out (font == "I" ? "\\fR" : "\\fI"); font = (font == "I" ? "" : "I")
      s = substr(s, 2)
    } else {
      out = out substr(s, 1, 1)
      s = substr(s, 2)
    }
  }
  return out (font != "" ? "\\fR" : "")
}
function inline(s) {
  s = minus(spans(escape(s)))
  if (s ~ /^[.\x27]/) s = "\\&" s
  return s
}
function endliteral() {
  if (literal) { print ".fi"; print ".RE"; literal = 0 }
}
NR == 1 && /^% / {
  line = substr($0, 3)
  split(line, parts, "|")
  title = parts[1]; manual = parts[2]
  sub(/[ ]+$/, "", title); sub(/^[ ]+/, "", manual)
  name = title; sub(/\(.*/, "", name)
  section = title; sub(/^[^(]*\(/, "", section); sub(/\).*/, "", section)
  source = title; sub(/^[^ ]* /, "", source)
  if (source == title) source = ""
  printf ".TH %s %s \"\" \"%s\" \"%s\"\n", name, section, source, manual
  next
}
/^# / {
  endliteral(); pending = ""
  printf ".SH \"%s\"\n", substr($0, 3)
  fresh = 1
  next
}
/^    / && (literal || pending == "") {
  if (!literal) { print ".PP"; print ".RS"; print ".nf"; literal = 1 }
  text = substr($0, 5)
  text = escape(text)
  gsub(/-/, "\\-", text)
  if (text ~ /^[.\x27]/) text = "\\&" text
  print text
  next
}
/^$/ {
  endliteral()
  if (pending != "") { if (fresh) print ".PP"; print inline(pending); pending = "" }
  fresh = 1
  indefinition = 0
  next
}
/^: / {
  endliteral()
  print ".TP"
  print inline(pending)
  pending = ""
  print inline(substr($0, 3))
  indefinition = 1
  next
}
/^  / && indefinition {
  print inline(substr($0, 3))
  next
}
{
  endliteral()
  indefinition = 0
  if (pending != "") {
    # A paragraph of several lines: the first one was held back in case a definition followed.
    if (fresh) print ".PP"
    print inline(pending)
    fresh = 0
  }
  pending = $0
}
END {
  endliteral()
  if (pending != "") { if (fresh) print ".PP"; print inline(pending) }
}
' "$1"
