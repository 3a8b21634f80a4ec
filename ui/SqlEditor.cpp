#include "ui/SqlEditor.h"

#include <QFontDatabase>
#include <QPainter>
#include <QTextBlock>

namespace blobbench {
namespace {

// The words of the dialects we run (SQL:2016 core plus what Firebird, PostgreSQL and SQLite add
// to the statements people write here).
const char* const kKeywords[] = {
    "ADD",    "ALL",     "ALTER",    "AND",     "AS",        "ASC",          "BEGIN",       "BETWEEN",   "BIGINT",
    "BLOB",   "BOOLEAN", "BY",       "BYTEA",   "CASE",      "CAST",         "CHAR",        "CHARACTER", "CHECK",
    "CLOB",   "COMMIT",  "CREATE",   "CROSS",   "DEFAULT",   "DELETE",       "DESC",        "DISTINCT",  "DROP",
    "ELSE",   "END",     "EXISTS",   "FALSE",   "FETCH",     "FIRST",        "FROM",        "FULL",      "GROUP",
    "HAVING", "IN",      "INDEX",    "INNER",   "INSERT",    "INTEGER",      "INTO",        "IS",        "JOIN",
    "KEY",    "LEFT",    "LIKE",     "LIMIT",   "NOT",       "NULL",         "OFFSET",      "ON",        "OR",
    "ORDER",  "OUTER",   "PRAGMA",   "PRIMARY", "RETURNING", "RIGHT",        "ROLLBACK",    "ROWS",      "SELECT",
    "SET",    "SKIP",    "SMALLINT", "TABLE",   "TEXT",      "THEN",         "TRUE",        "UNION",     "UNIQUE",
    "UPDATE", "USING",   "VALUES",   "VARCHAR", "VIEW",      "WHEN",         "WHERE",       "WITH",      "COUNT",
    "MAX",    "MIN",     "SUM",      "AVG",     "LENGTH",    "OCTET_LENGTH", "CHAR_LENGTH", "SUBSTRING", "COALESCE",
};

constexpr int kInBlockComment = 1;

}  // namespace

SqlHighlighter::SqlHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
    m_keyword.setFontWeight(QFont::Bold);
    m_comment.setFontItalic(true);
    applyColours(false);

    QStringList words;
    for (const char* word : kKeywords) {
        words << QLatin1String(word);
    }
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b(?:%1)\\b").arg(words.join(QLatin1Char('|'))),
                                          QRegularExpression::CaseInsensitiveOption),
                       Token::Keyword});
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?\\b")), Token::Number});
    // Strings after keywords and numbers, so they win inside quotes; comments come after all.
    m_rules.push_back({QRegularExpression(QStringLiteral("'(?:[^']|'')*'?")), Token::String});
}

void SqlHighlighter::applyColours(bool dark) {
    // Light: saturated on white. Dark: lighter tints that keep their contrast on a dark base.
    m_dark = dark;
    m_keyword.setForeground(dark ? QColor(0x6c, 0xa8, 0xff) : QColor(0x1f, 0x5f, 0xbf));
    m_string.setForeground(dark ? QColor(0x7e, 0xc9, 0x7a) : QColor(0x2e, 0x8b, 0x3e));
    m_number.setForeground(dark ? QColor(0xf0, 0xa4, 0x5a) : QColor(0xb0, 0x5a, 0x00));
    m_comment.setForeground(dark ? QColor(0x9a, 0x9a, 0x9a) : QColor(0x80, 0x80, 0x80));
}

void SqlHighlighter::setDark(bool dark) {
    if (dark != m_dark) {
        applyColours(dark);
        rehighlight();
    }
}

QTextCharFormat SqlHighlighter::formatOf(Token token) const {
    switch (token) {
        case Token::Keyword:
            return m_keyword;
        case Token::String:
            return m_string;
        case Token::Number:
            return m_number;
        case Token::Comment:
            break;
    }
    return m_comment;
}

void SqlHighlighter::highlightBlock(const QString& text) {
    for (const Rule& rule : m_rules) {
        auto it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            const auto match = it.next();
            setFormat(static_cast<int>(match.capturedStart()), static_cast<int>(match.capturedLength()),
                      formatOf(rule.token));
        }
    }
    // "--" starts a comment unless it is inside a string.
    for (qsizetype at = text.indexOf(QLatin1String("--")); at >= 0; at = text.indexOf(QLatin1String("--"), at + 2)) {
        if (format(static_cast<int>(at)) != m_string) {
            setFormat(static_cast<int>(at), static_cast<int>(text.size() - at), m_comment);
            break;
        }
    }
    // /* ... */ comments, which may span blocks.
    setCurrentBlockState(0);
    bool continuing = previousBlockState() == kInBlockComment;
    int start = continuing ? 0 : static_cast<int>(text.indexOf(QLatin1String("/*")));
    while (start >= 0) {
        const int end = static_cast<int>(text.indexOf(QLatin1String("*/"), continuing ? start : start + 2));
        continuing = false;
        int length;
        if (end < 0) {
            setCurrentBlockState(kInBlockComment);
            length = static_cast<int>(text.length()) - start;
        } else {
            length = end - start + 2;
        }
        setFormat(start, length, m_comment);
        start = static_cast<int>(text.indexOf(QLatin1String("/*"), start + length));
    }
}

namespace {

class Gutter final : public QWidget {
public:
    explicit Gutter(SqlEditor* editor) : QWidget(editor), m_editor(editor) {}
    QSize sizeHint() const override { return {m_editor->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_editor->paintGutter(event); }

private:
    SqlEditor* m_editor;
};

}  // namespace

SqlEditor::SqlEditor(QWidget* parent)
    : QPlainTextEdit(parent), m_gutter(new Gutter(this)), m_highlighter(new SqlHighlighter(document())) {
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTabStopDistance(fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 4);
    connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { setViewportMargins(gutterWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, &SqlEditor::updateGutter);
    setViewportMargins(gutterWidth(), 0, 0, 0);
    m_highlighter->setDark(palette().color(QPalette::Base).lightness() < 128);
}

void SqlEditor::changeEvent(QEvent* event) {
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) {
        m_highlighter->setDark(palette().color(QPalette::Base).lightness() < 128);
        m_gutter->update();
    }
}

int SqlEditor::gutterWidth() const {
    int digits = 1;
    for (int max = std::max(1, blockCount()); max >= 10; max /= 10) {
        ++digits;
    }
    return 8 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(2, digits);
}

void SqlEditor::updateGutter(const QRect& rect, int dy) {
    if (dy != 0) {
        m_gutter->scroll(0, dy);
    } else {
        m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    }
}

void SqlEditor::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    const QRect r = contentsRect();
    m_gutter->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
}

void SqlEditor::paintGutter(QPaintEvent* event) {
    QPainter painter(m_gutter);
    painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    painter.setPen(palette().color(QPalette::PlaceholderText));
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    while (block.isValid() && top <= event->rect().bottom()) {
        const int height = qRound(blockBoundingRect(block).height());
        if (block.isVisible() && top + height >= event->rect().top()) {
            painter.drawText(0, top, m_gutter->width() - 4, fontMetrics().height(), Qt::AlignRight,
                             QString::number(block.blockNumber() + 1));
        }
        block = block.next();
        top += height;
    }
}

}  // namespace blobbench
