#pragma once

#include <QDialog>
#include <QString>

#include "engine/drivers/Driver.h"
#include "ui/RunController.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace blobbench {

// Connection > Prepare data set: the reference tables of one connection filled with the data set
// choices of `blobbench-cli prepare` (synthetic: rows, seed, text or bytes; or the files of a
// folder), on the run worker thread, with progress, Stop and a result line. The connection comes
// with its password already resolved (ConnectionController: session, keyring, engine, prompt);
// the dialog keeps it only while it is open.
class PrepareDialog : public QDialog {
    Q_OBJECT
public:
    PrepareDialog(const QString& connectionName, ConnectionSpec connection, ParameterValues parameters,
                  RunController* worker, QWidget* parent = nullptr);
    ~PrepareDialog() override;  // stops a prepare under way (it ends after its batch)

    QRadioButton* syntheticChoice() const { return m_synthetic; }
    QRadioButton* folderChoice() const { return m_fromFolder; }
    QSpinBox* rowsBox() const { return m_rows; }
    QSpinBox* seedBox() const { return m_seed; }
    QCheckBox* binaryBox() const { return m_binary; }
    QCheckBox* createDatabaseBox() const { return m_createDatabase; }  // shown where the engine can create one
    QLineEdit* folderEdit() const { return m_folder; }
    QSpinBox* batchBox() const { return m_batch; }
    QPushButton* prepareButton() const { return m_prepare; }
    QPushButton* stopButton() const { return m_stop; }
    QProgressBar* progressBar() const { return m_progress; }
    QString resultText() const;  // the result line; empty before the first prepare ends
    bool isPreparing() const { return m_current != 0; }

    // The request the controls describe (what Prepare sends to the worker).
    PrepareRequest request() const;

public slots:
    void start();
    void stop();

signals:
    // A prepare ended: the data set is complete (ok), or `line` says what is left or what failed.
    void preparedDataset(bool ok, bool cancelled, const QString& line);

protected:
    void reject() override;  // Close / Esc while preparing: Stop first

private:
    void chooseFolder();
    void updateControls();
    void showResult(const QString& line, bool error);

    ConnectionSpec m_connection;
    ParameterValues m_parameters;
    RunController* m_worker;
    quint64 m_current = 0;  // the prepare under way, 0: none
    QRadioButton* m_synthetic;
    QRadioButton* m_fromFolder;
    QSpinBox* m_rows;
    QSpinBox* m_seed;
    QCheckBox* m_binary;
    QCheckBox* m_createDatabase;
    QLineEdit* m_folder;
    QPushButton* m_browse;
    QSpinBox* m_batch;
    QLabel* m_estimate;
    QProgressBar* m_progress;
    QLabel* m_progressText;
    QLabel* m_result;
    QPushButton* m_prepare;
    QPushButton* m_stop;
    QPushButton* m_close;
};

// Whether a run's error line is one the Prepare dialog answers (no data set, an incomplete one, a
// SQLite file that does not exist), so that the window offers it next to the error.
bool errorOffersPrepare(const QString& error);

}  // namespace blobbench
