#pragma once
// Colours for cfg text as Darknet reads it: section headers, keys, values and comments ('#' or ';' at
// a line's start, or after a value: Darknet's number parsing stops there). Colours come from the
// widget's palette, so they read on a dark theme too.
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace nw::ui {

// Where a line's text starts as Darknet reads it: after spaces, tabs and CRs (a lone CR is shown as
// U+240D in the Source view).
int cfgTextStart(const QString& line);

class CfgHighlighter : public QSyntaxHighlighter {
public:
    CfgHighlighter(QTextDocument* document, const QPalette& palette);
    // New colours for another palette (a dark theme chosen while the studio runs), the text redrawn.
    void setPalette(const QPalette& palette);

protected:
    void highlightBlock(const QString& text) override;

private:
    QTextCharFormat header_, key_, comment_;
};

} // namespace nw::ui
