#include "editor/cfg_highlighter.h"

#include <QPalette>

namespace nw::ui {

CfgHighlighter::CfgHighlighter(QTextDocument* document, const QPalette& palette)
    : QSyntaxHighlighter(document)
{
    setPalette(palette);
}

void CfgHighlighter::setPalette(const QPalette& palette)
{
    header_ = key_ = comment_ = QTextCharFormat();
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    header_.setForeground(palette.color(QPalette::Link));
    header_.setFontWeight(QFont::Bold);
    key_.setForeground(dark ? QColor(0x7f, 0xd4, 0xdc) : QColor(0x00, 0x6a, 0x74));
    comment_.setForeground(palette.color(QPalette::PlaceholderText));
    comment_.setFontItalic(true);
    rehighlight();
}

int cfgTextStart(const QString& line)
{
    int at = 0;
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == QChar(0x240D)))
        ++at;
    return at;
}

void CfgHighlighter::highlightBlock(const QString& text)
{
    const qsizetype start = cfgTextStart(text); // (indented lines count as what they start with)
    if (start == text.size())
        return;
    const QChar first = text[start];
    if (first == '#' || first == ';') {
        setFormat(int(start), int(text.size() - start), comment_);
    } else if (first == '[') {
        setFormat(int(start), int(text.size() - start), header_);
    } else if (const qsizetype equals = text.indexOf('='); equals > start) {
        setFormat(int(start), int(equals - start), key_);
        for (qsizetype i = equals + 1; i < text.size(); ++i)
            if (text[i] == '#' || text[i] == ';') {
                setFormat(int(i), int(text.size() - i), comment_);
                break;
            }
    }
}

} // namespace nw::ui
