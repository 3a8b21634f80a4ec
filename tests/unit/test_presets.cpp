// Preset lookup (model/Presets.h): installed data directories first, then the source tree; a name in
// an earlier directory hides the same name later; only *.blobbench.json files.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <cstdlib>

#include "model/Presets.h"
#include "support/TestSupport.h"

namespace {

void touch(const QString& path) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly)) << path.toStdString();
    f.write("{}\n");
}

QString sourcePresets() {
    return QFileInfo(QStringLiteral(BLOBBENCH_SOURCE_DIR "/resources/presets")).canonicalFilePath();
}

class PresetsTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(tmp.isValid());
        home = tmp.filePath(QStringLiteral("home"));
        installed = tmp.filePath(QStringLiteral("usr/share"));
        other = tmp.filePath(QStringLiteral("opt/share"));
        QDir().mkpath(home);
        setenv("XDG_DATA_HOME", home.toLocal8Bit().constData(), 1);
        setenv("XDG_DATA_DIRS", (installed + QLatin1Char(':') + other).toLocal8Bit().constData(), 1);
    }
    QTemporaryDir tmp;
    QString home, installed, other;
};

TEST_F(PresetsTest, SourceTreeOnlyWhenNothingIsInstalled) {
    EXPECT_EQ(blobbench::presetDirectories(), QStringList{sourcePresets()});
    const QStringList files = blobbench::presetFiles();
    const QStringList expected =
        QDir(sourcePresets()).entryList({QStringLiteral("*.blobbench.json")}, QDir::Files, QDir::Name);
    ASSERT_FALSE(expected.isEmpty());
    ASSERT_EQ(files.size(), expected.size());
    for (int i = 0; i < files.size(); ++i) {
        EXPECT_EQ(QFileInfo(files[i]).fileName(), expected[i]);
        EXPECT_EQ(QFileInfo(files[i]).absolutePath(), sourcePresets());
    }
}

TEST_F(PresetsTest, InstalledDirectoriesComeFirstAndHideTheSameName) {
    touch(installed + QStringLiteral("/blobbench/presets/sqlite-reference.blobbench.json"));
    touch(installed + QStringLiteral("/blobbench/presets/notes.json"));  // not a project: ignored
    touch(other + QStringLiteral("/blobbench/presets/zz-local.blobbench.json"));
    touch(other + QStringLiteral("/blobbench/presets/sqlite-reference.blobbench.json"));
    const QString first = QFileInfo(installed + QStringLiteral("/blobbench/presets")).canonicalFilePath();
    const QString second = QFileInfo(other + QStringLiteral("/blobbench/presets")).canonicalFilePath();

    const QStringList dirs = blobbench::presetDirectories();
    ASSERT_EQ(dirs.size(), 3) << dirs.join(QLatin1Char(' ')).toStdString();
    EXPECT_EQ(dirs[0], first);
    EXPECT_EQ(dirs[1], second);
    EXPECT_EQ(dirs[2], sourcePresets());

    const QStringList files = blobbench::presetFiles();
    EXPECT_TRUE(files.contains(first + QStringLiteral("/sqlite-reference.blobbench.json")));
    EXPECT_FALSE(files.contains(second + QStringLiteral("/sqlite-reference.blobbench.json")));
    EXPECT_FALSE(files.contains(sourcePresets() + QStringLiteral("/sqlite-reference.blobbench.json")));
    EXPECT_TRUE(files.contains(second + QStringLiteral("/zz-local.blobbench.json")));
    EXPECT_TRUE(files.contains(sourcePresets() + QStringLiteral("/firebird-reference.blobbench.json")));
    for (const QString& f : files) {
        EXPECT_TRUE(f.endsWith(QStringLiteral(".blobbench.json"))) << f.toStdString();
    }
    QStringList names;
    for (const QString& f : files) {
        names << QFileInfo(f).fileName();
    }
    QStringList sorted = names;
    sorted.sort();
    EXPECT_EQ(names, sorted);
    EXPECT_EQ(names.removeDuplicates(), 0);
}

}  // namespace
