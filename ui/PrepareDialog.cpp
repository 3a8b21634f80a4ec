#include "ui/PrepareDialog.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/drivers/Registry.h"
#include "model/SeriesNaming.h"
#include "ui/Units.h"

namespace blobbench {
namespace {

constexpr int kMaxRows = 1'000'000;                   // blobbench-cli prepare's limit (about 13 GB)
constexpr double kReferenceBytesPerRow = 12'654.833;  // the reference profile: 126,548,330 bytes / 10,000 rows

}  // namespace

PrepareDialog::PrepareDialog(const QString& connectionName, ConnectionSpec connection, ParameterValues parameters,
                             RunController* worker, QWidget* parent)
    : QDialog(parent),
      m_connection(std::move(connection)),
      m_parameters(std::move(parameters)),
      m_worker(worker),
      m_synthetic(new QRadioButton(tr("&Synthetic source-like text (the reference data set's shape)"), this)),
      m_fromFolder(new QRadioButton(tr("The files of a &folder"), this)),
      m_rows(new QSpinBox(this)),
      m_seed(new QSpinBox(this)),
      m_binary(new QCheckBox(tr("&Incompressible bytes instead of text"), this)),
      m_createDatabase(new QCheckBox(tr("Create the database &file if it does not exist"), this)),
      m_folder(new QLineEdit(this)),
      m_browse(new QPushButton(tr("&Browse…"), this)),
      m_batch(new QSpinBox(this)),
      m_estimate(new QLabel(this)),
      m_progress(new QProgressBar(this)),
      m_progressText(new QLabel(this)),
      m_result(new QLabel(this)),
      m_prepare(new QPushButton(tr("&Prepare"), this)),
      m_stop(new QPushButton(tr("S&top"), this)),
      m_close(new QPushButton(tr("&Close"), this)) {
    setWindowTitle(tr("Prepare data set — %1").arg(connectionName));
    setObjectName(QStringLiteral("prepareDialog"));
    auto* intro = new QLabel(tr("Creates the reference tables BLOB_TEST and BLOB_SAMPLE on <b>%1</b> and fills them, "
                                "one transaction per batch. <b>Tables of these names there are dropped first.</b>")
                                 .arg(connectionText(m_connection.label()).toHtmlEscaped()),
                             this);
    intro->setWordWrap(true);

    m_synthetic->setChecked(true);
    m_rows->setRange(1, kMaxRows);
    m_rows->setValue(10000);
    m_rows->setGroupSeparatorShown(true);
    m_rows->setToolTip(tr("Rows of BLOB_TEST (blobbench-cli prepare --rows); a folder's files are cycled"));
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setValue(static_cast<int>(SyntheticProfile{}.seed));
    m_seed->setToolTip(tr("The same seed gives the same data (--seed)"));
    m_binary->setToolTip(tr("Bytes that do not compress, to see wire compression without effect (--binary)"));
    // Engines whose connection can create its database (Firebird's create_database): a fresh
    // server has none, and Test's "I/O error during open" offers this dialog (#30).
    bool canCreate = false;
    try {
        const auto& specs = driverById(m_connection.engine).parameters();
        canCreate =
            std::any_of(specs.begin(), specs.end(), [](const ParameterSpec& p) { return p.id == "create_database"; });
    } catch (const Error&) {
        // an unknown engine fails at connect, in its own words
    }
    m_createDatabase->setVisible(canCreate);
    m_createDatabase->setChecked(canCreate);
    m_createDatabase->setToolTip(
        tr("Only a missing file is created (with the page size of the Parameters); an "
           "existing database is used as it is (create_database)"));
    m_folder->setPlaceholderText(tr("every file below it becomes a BLOB_SAMPLE row (--from-folder)"));
    m_batch->setRange(1, 100000);
    m_batch->setValue(1000);
    m_batch->setToolTip(tr("Rows per transaction; Stop takes effect after the batch in progress (--batch)"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progressText->setObjectName(QStringLiteral("prepareProgress"));
    m_result->setObjectName(QStringLiteral("prepareResult"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_estimate->setObjectName(QStringLiteral("prepareEstimate"));
    const int numberWidth = fontMetrics().horizontalAdvance(QStringLiteral("0,000,000,000")) + 48;
    for (QSpinBox* box : {m_rows, m_seed, m_batch})
        box->setMaximumWidth(numberWidth);

    auto* data = new QGroupBox(tr("Data"), this);
    auto* dataLayout = new QFormLayout(data);
    dataLayout->addRow(m_synthetic);
    auto* synthetic = new QFormLayout;
    synthetic->setContentsMargins(24, 0, 0, 0);
    synthetic->addRow(tr("S&eed"), m_seed);
    synthetic->addRow(QString(), m_binary);
    dataLayout->addRow(synthetic);
    dataLayout->addRow(m_fromFolder);
    auto* folderRow = new QHBoxLayout;
    folderRow->setContentsMargins(24, 0, 0, 0);
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(m_browse);
    dataLayout->addRow(folderRow);
    auto* sizes = new QFormLayout;
    sizes->addRow(tr("&Rows"), m_rows);
    sizes->addRow(QString(), m_estimate);
    sizes->addRow(tr("Rows per &transaction"), m_batch);

    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_prepare);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_close);
    m_prepare->setDefault(true);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_createDatabase);
    layout->addWidget(data);
    layout->addLayout(sizes);
    layout->addWidget(m_progress);
    layout->addWidget(m_progressText);
    layout->addWidget(m_result);
    layout->addStretch(1);
    layout->addLayout(buttons);

    connect(m_synthetic, &QRadioButton::toggled, this, &PrepareDialog::updateControls);
    connect(m_rows, &QSpinBox::valueChanged, this, &PrepareDialog::updateControls);
    connect(m_folder, &QLineEdit::textChanged, this, &PrepareDialog::updateControls);
    connect(m_browse, &QPushButton::clicked, this, &PrepareDialog::chooseFolder);
    connect(m_prepare, &QPushButton::clicked, this, &PrepareDialog::start);
    connect(m_stop, &QPushButton::clicked, this, &PrepareDialog::stop);
    connect(m_close, &QPushButton::clicked, this, &PrepareDialog::reject);

    connect(m_worker, &RunController::datasetProgress, this, [this](quint64 id, quint64 done, quint64 total) {
        if (id != m_current)
            return;
        m_progress->setValue(static_cast<int>(total > 0 ? done * 1000 / total : 0));
        m_progressText->setText(tr("%1 / %2 rows committed").arg(formatCount(done), formatCount(total)));
    });
    connect(m_worker, &RunController::datasetPrepared, this,
            [this](quint64 id, bool ok, bool cancelled, const QString& line) {
                if (id != m_current)
                    return;
                m_current = 0;
                if (ok)
                    m_progress->setValue(1000);
                m_progressText->setText(ok ? tr("Done") : cancelled ? tr("Stopped") : tr("Failed"));
                showResult(line, !ok && !cancelled);
                updateControls();
                emit preparedDataset(ok, cancelled, line);
            });
    updateControls();
    resize(sizeHint().expandedTo(QSize(560, 0)));
}

PrepareDialog::~PrepareDialog() {
    if (isPreparing())
        m_worker->stopPrepare();
}

QString PrepareDialog::resultText() const {
    return m_result->text();
}

PrepareRequest PrepareDialog::request() const {
    PrepareRequest r;
    r.connection = m_connection;
    r.parameters = m_parameters;
    if (!m_createDatabase->isHidden())
        r.parameters["create_database"] = m_createDatabase->isChecked() ? "true" : "false";
    r.choice.rows = static_cast<std::uint64_t>(m_rows->value());
    if (m_fromFolder->isChecked()) {
        r.choice.folder = m_folder->text().trimmed().toStdString();
    } else {
        r.choice.seed = static_cast<std::uint64_t>(m_seed->value());
        r.choice.binary = m_binary->isChecked();
    }
    r.batchRows = static_cast<std::uint64_t>(m_batch->value());
    return r;
}

void PrepareDialog::start() {
    if (isPreparing())
        return;
    if (m_fromFolder->isChecked() && m_folder->text().trimmed().isEmpty()) {
        showResult(tr("Name the folder whose files fill BLOB_SAMPLE."), true);
        return;
    }
    m_result->clear();
    m_progress->setValue(0);
    m_progressText->setText(tr("Connecting to %1…").arg(connectionText(m_connection.label())));
    m_current = m_worker->prepareDataset(request());
    updateControls();
}

void PrepareDialog::stop() {
    if (!isPreparing())
        return;
    m_worker->stopPrepare();
    m_progressText->setText(tr("Stopping after the batch in progress…"));
    m_stop->setEnabled(false);
}

void PrepareDialog::reject() {
    if (isPreparing()) {
        stop();  // the dialog stays until the worker says what is left
        return;
    }
    QDialog::reject();
}

void PrepareDialog::chooseFolder() {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Folder of files for BLOB_SAMPLE"), m_folder->text());
    if (!dir.isEmpty()) {
        m_folder->setText(dir);
        m_fromFolder->setChecked(true);
    }
}

void PrepareDialog::updateControls() {
    const bool busy = isPreparing();
    const bool synthetic = m_synthetic->isChecked();
    for (QWidget* w : std::initializer_list<QWidget*>{m_synthetic, m_fromFolder, m_rows, m_batch, m_createDatabase})
        w->setEnabled(!busy);
    m_seed->setEnabled(!busy && synthetic);
    m_binary->setEnabled(!busy && synthetic);
    m_folder->setEnabled(!busy && !synthetic);
    m_browse->setEnabled(!busy && !synthetic);
    m_prepare->setEnabled(!busy);
    m_stop->setEnabled(busy);
    m_close->setEnabled(!busy);
    m_estimate->setText(synthetic ? tr("about %1 of content").arg(formatBytes(m_rows->value() * kReferenceBytesPerRow))
                                  : tr("the folder's files, cycled in name order"));
}

void PrepareDialog::showResult(const QString& line, bool error) {
    m_result->setText(line);
    m_result->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
    // A wrapped result of several lines needs more height than the dialog has: the layout would
    // take it from the spin boxes above (the Seed box collapsed to a sliver). Grow instead.
    if (QLayout* l = layout(); l != nullptr) {
        l->activate();
        const int needed = l->hasHeightForWidth() ? l->totalHeightForWidth(width()) : l->totalSizeHint().height();
        if (height() < needed)
            resize(width(), needed);
    }
}

bool errorOffersPrepare(const QString& error) {
    return error.contains(QLatin1String("no complete reference data set")) ||
           error.contains(QLatin1String("no such database file")) ||
           error.contains(QLatin1String("prepare it with create_database=true"));
}

}  // namespace blobbench
