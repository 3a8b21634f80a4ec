#pragma once

#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace blobbench {

// SQL colouring of our own: keywords, strings, quoted identifiers, numbers, -- and /* */ comments
// (block comments across lines through the block state).
class SqlHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit SqlHighlighter(QTextDocument* document);

    enum class Token { Keyword, String, Number, Comment };
    QTextCharFormat formatOf(Token token) const;
    // Colours for a dark or a light base; rehighlights when that changes.
    void setDark(bool dark);
    bool isDark() const { return m_dark; }

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        Token token;
    };
    void applyColours(bool dark);
    std::vector<Rule> m_rules;
    bool m_dark = false;
    QTextCharFormat m_keyword;
    QTextCharFormat m_string;
    QTextCharFormat m_number;
    QTextCharFormat m_comment;
};

// A plain-text SQL editor with a line-number gutter (after Qt's code editor example).
class SqlEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit SqlEditor(QWidget* parent = nullptr);

    int gutterWidth() const;
    void paintGutter(QPaintEvent* event);
    SqlHighlighter* highlighter() const { return m_highlighter; }

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;  // palette changes: the colours follow

private:
    void updateGutter(const QRect& rect, int dy);
    QWidget* m_gutter;
    SqlHighlighter* m_highlighter;
};

}  // namespace blobbench
