#include <gtest/gtest.h>

#include <QComboBox>
#include <QTextBlock>
#include <QTextLayout>

#include "engine/drivers/Registry.h"
#include "ui/ConnectionDialog.h"
#include "ui/SqlEditor.h"

using namespace blobbench;

namespace {

// The highlighter's token at a position of a block, or nothing when the text there is plain.
std::optional<SqlHighlighter::Token> tokenAt(const SqlEditor& editor, int blockNumber, int position) {
    const QTextBlock block = editor.document()->findBlockByNumber(blockNumber);
    for (const QTextLayout::FormatRange& range : block.layout()->formats()) {
        if (position >= range.start && position < range.start + range.length) {
            for (auto token : {SqlHighlighter::Token::Keyword, SqlHighlighter::Token::String,
                               SqlHighlighter::Token::Number, SqlHighlighter::Token::Comment}) {
                if (range.format == editor.highlighter()->formatOf(token)) {
                    return token;
                }
            }
        }
    }
    return std::nullopt;
}

}  // namespace

TEST(SqlHighlighter, ColoursKeywordsStringsNumbersAndComments) {
    SqlEditor editor;
    editor.setPlainText(
        QStringLiteral("select ID, 'it''s -- no comment' FROM T WHERE N > 42 -- why\n"
                       "/* a block\n"
                       "   comment SELECT */ LIMIT 5"));
    using Token = SqlHighlighter::Token;
    EXPECT_EQ(tokenAt(editor, 0, 0), Token::Keyword);  // case-insensitive
    EXPECT_EQ(tokenAt(editor, 0, 7), std::nullopt);    // an identifier
    EXPECT_EQ(tokenAt(editor, 0, 12), Token::String);
    EXPECT_EQ(tokenAt(editor, 0, 20), Token::String);  // "--" inside a string is not a comment
    EXPECT_EQ(tokenAt(editor, 0, 51), Token::Number);
    EXPECT_EQ(tokenAt(editor, 0, 55), Token::Comment);
    EXPECT_EQ(tokenAt(editor, 1, 3), Token::Comment);
    EXPECT_EQ(tokenAt(editor, 2, 12), Token::Comment);  // SELECT inside the block comment
    EXPECT_EQ(tokenAt(editor, 2, 22), Token::Keyword);  // LIMIT after it
    EXPECT_EQ(tokenAt(editor, 2, 27), Token::Number);
}

TEST(SqlEditor, GutterGrowsWithTheLineCount) {
    SqlEditor editor;
    editor.setPlainText(QStringLiteral("SELECT 1"));
    const int narrow = editor.gutterWidth();
    QString many;
    for (int i = 0; i < 1200; ++i)
        many += QStringLiteral("SELECT 1;\n");
    editor.setPlainText(many);
    EXPECT_GT(editor.gutterWidth(), narrow);
}

TEST(ConnectionDialog, OffersEveryEngineAndKeepsWhatItDoesNotEdit) {
    ConnectionDialog dialog;
    auto* engines = dialog.findChild<QComboBox*>();
    ASSERT_NE(engines, nullptr);
    EXPECT_EQ(engines->count(), static_cast<int>(allDrivers().size()));
    ConnectionProfile profile;
    profile.name = QStringLiteral("fb");
    profile.engine = QString::fromStdString(driverById("firebird").id());
    profile.target = QStringLiteral("inet://localhost/blob_test");
    profile.user = QStringLiteral("SYSDBA");
    profile.useWireTap = true;
    profile.link.latencyDownMs = 20;
    dialog.setProfile(profile, QStringLiteral("secret"));
    EXPECT_EQ(dialog.profile(), profile);
    EXPECT_EQ(dialog.password(), QStringLiteral("secret"));
}
