#pragma once
// File > Open preset > Reproduce a publication (issue #28): a published experiment run again here
// by blobbench-cli reproduce, its table published against measured with a verdict per figure, and
// a chart of measured / published. The window runs the installed command line (the same code, the
// same output a user can run by hand) and reads the JSON it writes; passwords go to it in its
// environment (ISC_PASSWORD, PGPASSWORD), never on its command line.

#include <QDialog>
#include <QProcess>
#include <QTemporaryDir>
#include <functional>
#include <memory>
#include <vector>

#include "model/Project.h"
#include "ui/Charts.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace blobbench {

struct Publication;

class ReproduceWindow : public QDialog {
    Q_OBJECT
public:
    enum Column { Quantity, Published, Measured, Unit, Verdict, Reason, ColumnCount };
    using PasswordLookup = std::function<QString(const ConnectionProfile&)>;
    // `connections`: the project's; those of the publication's engine are offered.
    ReproduceWindow(const Publication& publication, const std::vector<ConnectionProfile>& connections,
                    PasswordLookup password, QWidget* parent = nullptr);
    ~ReproduceWindow() override;

    // Runs blobbench-cli reproduce with the options set in the window; finished() when it ends.
    void start();
    void stop();
    bool running() const;
    // A JSON that `blobbench-cli reproduce ... --json FILE` wrote: the table and the chart from it.
    // False, with errorText() naming the file and what was wrong, when it cannot be read.
    bool loadResult(const QString& path);

    QTableWidget* table() const { return m_table; }
    VerdictChart* chart() const { return m_chart.get(); }
    QString errorText() const;
    QString output() const;
    QSpinBox* rowsBox() const { return m_rows; }
    // The command line it runs (for the log; a password is never in it).
    QStringList arguments() const;
    static QString cliProgram();

signals:
    void finished(bool ok);

private:
    void showError(const QString& line);
    void processEnded(int code, QProcess::ExitStatus status);

    const Publication& m_publication;
    std::vector<ConnectionProfile> m_connections;
    PasswordLookup m_password;
    QComboBox* m_connection = nullptr;
    QSpinBox* m_rows = nullptr;
    QSpinBox* m_repeat = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_status = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QTableWidget* m_table = nullptr;
    std::unique_ptr<VerdictChart> m_chart;
    QProcess* m_process = nullptr;
    QTemporaryDir m_work;
    QString m_lastErrLine;
};

}  // namespace blobbench
