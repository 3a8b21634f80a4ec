#include "ui/ReproduceWindow.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "engine/report/PublishedTable.h"

namespace blobbench {
namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString number(double v) {
    if (v != 0 && std::abs(v) < 10)
        return QLocale().toString(v, 'g', 3);
    return QLocale().toString(v, 'f', 0);
}

QColor verdictColor(const QString& verdict) {
    if (verdict == QLatin1String("reproduced"))
        return QColor(0x59, 0xa1, 0x4f, 60);
    if (verdict == QLatin1String("differs"))
        return QColor(0xe1, 0x57, 0x59, 60);
    return QColor(0x9c, 0x9c, 0x9c, 40);
}

}  // namespace

ReproduceWindow::ReproduceWindow(const Publication& publication, const std::vector<ConnectionProfile>& connections,
                                 PasswordLookup password, QWidget* parent)
    : QDialog(parent), m_publication(publication), m_password(std::move(password)) {
    setObjectName(QStringLiteral("reproduceWindow"));
    setWindowTitle(tr("Reproduce: %1").arg(qs(publication.name)));
    setAttribute(Qt::WA_DeleteOnClose);
    for (const ConnectionProfile& c : connections) {
        if (!publication.engine.empty() && c.engine == qs(publication.engine) && publication.engine != "sqlite")
            m_connections.push_back(c);
    }
    auto* layout = new QVBoxLayout(this);
    auto* source = new QLabel(this);
    source->setTextFormat(Qt::RichText);
    source->setOpenExternalLinks(true);
    source->setWordWrap(true);
    source->setText(
        tr("<b>%1</b>%2<br><a href=\"%3\">%3</a><br>Link as published: %4")
            .arg(qs(publication.source.title).toHtmlEscaped(),
                 publication.source.date.empty() ? QString() : QStringLiteral(", ") + qs(publication.source.date),
                 qs(publication.source.url).toHtmlEscaped(),
                 publication.link.empty() ? tr("not stated (fitted from its rows)") : qs(publication.link)));
    layout->addWidget(source);

    auto* form = new QFormLayout;
    m_connection = new QComboBox(this);
    m_connection->setObjectName(QStringLiteral("reproduceConnection"));
    if (publication.engine == "sqlite") {
        m_connection->addItem(tr("a temporary folder (SQLite and one file per BLOB)"));
    } else if (publication.engine.empty()) {
        m_connection->addItem(tr("none: no engine here runs it, the table is stated only"));
    } else if (m_connections.empty()) {
        m_connection->addItem(
            tr("(the project has no %1 connection: add one with Connection > Edit…)").arg(qs(publication.engine)));
    }
    for (const ConnectionProfile& c : m_connections)
        m_connection->addItem(c.name.isEmpty() ? c.target : c.name);
    form->addRow(tr("Connection"), m_connection);
    m_rows = new QSpinBox(this);
    m_rows->setObjectName(QStringLiteral("reproduceRows"));
    m_rows->setRange(0, publication.engine == "postgres" ? 64 * 1024 : 1000000);
    m_rows->setSpecialValueText(tr("as published"));
    m_rows->setSuffix(publication.engine == "postgres" ? tr(" KiB") : QString());
    if (publication.engine == "firebird" || publication.engine == "sqlite" || publication.engine == "postgres")
        form->addRow(publication.engine == "postgres" ? tr("Document size") : tr("Rows"), m_rows);
    else
        m_rows->hide();  // not in the form: it would float over the window's top left
    m_repeat = new QSpinBox(this);
    m_repeat->setRange(0, 1000);
    m_repeat->setSpecialValueText(tr("default"));
    if (publication.engine == "firebird" || publication.engine == "postgres")
        form->addRow(tr("Measured executions"), m_repeat);
    else
        m_repeat->hide();
    layout->addLayout(form);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("reproduceError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_error->hide();
    layout->addWidget(m_error);

    auto* split = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(0, ColumnCount, split);
    m_table->setHorizontalHeaderLabels(
        {tr("Figure"), tr("Published"), tr("Measured here"), tr("Unit"), tr("Verdict"), tr("Why")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_chart = makeVerdictChart(split);
    m_chart->widget()->setMinimumHeight(220);
    m_log = new QPlainTextEdit(split);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_log->setPlaceholderText(tr("The output of blobbench-cli reproduce, as it runs"));
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 1);
    layout->addWidget(split, 1);

    m_status = new QLabel(this);
    layout->addWidget(m_status);
    auto* buttons = new QDialogButtonBox(this);
    m_run = buttons->addButton(tr("&Run"), QDialogButtonBox::ActionRole);
    m_run->setObjectName(QStringLiteral("reproduceRun"));
    m_stop = buttons->addButton(tr("&Stop"), QDialogButtonBox::ActionRole);
    m_stop->setEnabled(false);
    QPushButton* open = buttons->addButton(tr("&Open result…"), QDialogButtonBox::ActionRole);
    open->setToolTip(tr("A JSON file written by blobbench-cli reproduce … --json FILE"));
    buttons->addButton(QDialogButtonBox::Close);
    layout->addWidget(buttons);
    m_run->setEnabled(publication.engine.empty() || publication.engine == "sqlite" || !m_connections.empty());
    connect(m_run, &QPushButton::clicked, this, &ReproduceWindow::start);
    connect(m_stop, &QPushButton::clicked, this, &ReproduceWindow::stop);
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open a reproduce result"), QString(), tr("JSON (*.json)"));
        if (!path.isEmpty())
            loadResult(path);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    resize(980, 760);
}

ReproduceWindow::~ReproduceWindow() {
    if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->terminate();
        m_process->waitForFinished(5000);
    }
}

QString ReproduceWindow::cliProgram() {
    if (QString env = qEnvironmentVariable("BLOBBENCH_CLI"); !env.isEmpty())
        return env;
    const QString dir = QCoreApplication::applicationDirPath();
    // Installed side by side; in the build tree the window is app/gui/blobbench, the CLI app/blobbench-cli.
    const QStringList candidates{dir + QStringLiteral("/blobbench-cli"), dir + QStringLiteral("/../blobbench-cli"),
                                 dir + QStringLiteral("/../app/blobbench-cli")};
    for (const QString& candidate : candidates) {
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    }
    return QStandardPaths::findExecutable(QStringLiteral("blobbench-cli"));
}

QStringList ReproduceWindow::arguments() const {
    QStringList args{QStringLiteral("reproduce"), qs(m_publication.name)};
    const std::string& engine = m_publication.engine;
    const int index = m_connection->currentIndex() - (m_connections.empty() ? 1 : 0);
    if ((engine == "firebird" || engine == "postgres") && index >= 0 &&
        index < static_cast<int>(m_connections.size())) {
        const ConnectionProfile& c = m_connections[static_cast<std::size_t>(index)];
        args << c.target;
        if (engine == "firebird" && !c.user.isEmpty())
            args << QStringLiteral("-u") << c.user;
        if (engine == "firebird" && !c.clientLibrary.isEmpty())
            args << QStringLiteral("--client-library") << c.clientLibrary;
    }
    if (m_rows->value() > 0 && (engine == "firebird" || engine == "sqlite"))
        args << QStringLiteral("--rows") << QString::number(m_rows->value());
    if (m_rows->value() > 0 && engine == "postgres")
        args << QStringLiteral("--size") << QString::number(static_cast<qint64>(m_rows->value()) * 1024);
    if (m_repeat->value() > 0 && (engine == "firebird" || engine == "postgres"))
        args << QStringLiteral("--repeat") << QString::number(m_repeat->value());
    args << QStringLiteral("--json") << m_work.filePath(QStringLiteral("result.json"));
    return args;
}

void ReproduceWindow::start() {
    if (running())
        return;
    const QString program = cliProgram();
    if (program.isEmpty()) {
        showError(tr("blobbench-cli was not found beside the window or on the PATH: it runs the experiment"));
        return;
    }
    if (!m_work.isValid()) {
        showError(tr("No temporary folder for the result: %1").arg(m_work.errorString()));
        return;
    }
    QFile::remove(m_work.filePath(QStringLiteral("result.json")));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const int index = m_connection->currentIndex() - (m_connections.empty() ? 1 : 0);
    if (index >= 0 && index < static_cast<int>(m_connections.size()) && m_password) {
        const ConnectionProfile& c = m_connections[static_cast<std::size_t>(index)];
        const QString password = m_password(c);
        if (!password.isEmpty())
            env.insert(
                c.engine == QLatin1String("firebird") ? QStringLiteral("ISC_PASSWORD") : QStringLiteral("PGPASSWORD"),
                password);
    }
    m_error->hide();
    m_lastErrLine.clear();
    m_log->clear();
    m_log->appendPlainText(QStringLiteral("$ blobbench-cli ") + arguments().join(QLatin1Char(' ')));
    m_process = new QProcess(this);
    m_process->setProcessEnvironment(env);
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { m_log->appendPlainText(QString::fromUtf8(m_process->readAllStandardOutput()).trimmed()); });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        const QString text = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
        if (!text.isEmpty()) {
            m_log->appendPlainText(text);
            m_lastErrLine = text.section(QLatin1Char('\n'), -1);
        }
    });
    connect(m_process, &QProcess::finished, this, &ReproduceWindow::processEnded);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            showError(tr("blobbench-cli did not start: %1").arg(m_process->errorString()));
            m_run->setEnabled(true);
            m_stop->setEnabled(false);
            emit finished(false);
        }
    });
    m_run->setEnabled(false);
    m_stop->setEnabled(true);
    m_status->setText(tr("Running %1…").arg(qs(m_publication.name)));
    m_process->start(program, arguments());
}

void ReproduceWindow::stop() {
    if (running())
        m_process->terminate();  // SIGTERM: the command says it was cancelled and writes nothing
}

bool ReproduceWindow::running() const {
    return m_process != nullptr && m_process->state() != QProcess::NotRunning;
}

void ReproduceWindow::processEnded(int code, QProcess::ExitStatus status) {
    m_log->appendPlainText(QString::fromUtf8(m_process->readAll()).trimmed());
    m_run->setEnabled(true);
    m_stop->setEnabled(false);
    bool ok = false;
    if (status == QProcess::CrashExit) {
        showError(tr("blobbench-cli ended abnormally (%1); nothing was judged").arg(m_process->errorString()));
    } else if (code != 0) {
        showError(m_lastErrLine.isEmpty() ? tr("blobbench-cli reproduce ended with exit %1").arg(code) : m_lastErrLine);
    } else {
        ok = loadResult(m_work.filePath(QStringLiteral("result.json")));
    }
    m_status->setText(ok ? tr("Done: %1").arg(qs(m_publication.name)) : tr("Not judged"));
    m_process->deleteLater();
    m_process = nullptr;
    emit finished(ok);
}

void ReproduceWindow::showError(const QString& line) {
    m_error->setText(line);
    m_error->show();
}

QString ReproduceWindow::errorText() const {
    return m_error->isHidden() ? QString() : m_error->text();
}

QString ReproduceWindow::output() const {
    return m_log->toPlainText();
}

bool ReproduceWindow::loadResult(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        showError(tr("%1: cannot read it: %2").arg(path, file.errorString()));
        return false;
    }
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    const QJsonObject root = doc.object();
    const QJsonArray cells = root.value(QStringLiteral("cells")).toArray();
    if (doc.isNull() || !root.value(QStringLiteral("publication")).isString() || cells.isEmpty()) {
        showError(tr("%1: not a result of blobbench-cli reproduce (%2)")
                      .arg(path, doc.isNull() ? parseError.errorString() : tr("no publication or cells")));
        return false;
    }
    const Publication* publication =
        findPublication(root.value(QStringLiteral("publication")).toString().toStdString());
    m_table->setRowCount(0);
    std::vector<VerdictPoint> points;
    for (const auto& value : cells) {
        const QJsonObject cell = value.toObject();
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        const QString verdict = cell.value(QStringLiteral("verdict")).toString();
        const double published = cell.value(QStringLiteral("published")).toDouble();
        const bool measured = cell.contains(QStringLiteral("measured"));
        const QString texts[ColumnCount] = {
            cell.value(QStringLiteral("quantity")).toString(),
            number(published),
            measured ? number(cell.value(QStringLiteral("measured")).toDouble()) : QStringLiteral("-"),
            cell.value(QStringLiteral("unit")).toString(),
            verdict,
            cell.value(QStringLiteral("reason")).toString()};
        for (int column = 0; column < ColumnCount; ++column) {
            auto* item = new QTableWidgetItem(texts[column]);
            item->setToolTip(texts[column]);
            if (column == Published || column == Measured)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setBackground(verdictColor(verdict));
            m_table->setItem(row, column, item);
        }
        VerdictPoint point{texts[Quantity], 0, 1, 1, verdict};
        if (measured && published > 0)
            point.ratio = cell.value(QStringLiteral("measured")).toDouble() / published;
        const std::string id = cell.value(QStringLiteral("id")).toString().toStdString();
        if (publication != nullptr && published > 0) {
            for (const PublishedCell& c : publication->cells) {
                if (c.id == id) {
                    point.low = c.low / published;
                    point.high = c.high / published;
                }
            }
        }
        if (point.ratio > 0)
            points.push_back(point);  // the chart draws what was measured; the table lists every figure
    }
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(Quantity, std::min(m_table->columnWidth(Quantity), 320));
    QStringList method;
    const QJsonObject how = root.value(QStringLiteral("method")).toObject();
    for (auto it = how.begin(); it != how.end(); ++it)
        method << it.key() + QStringLiteral(": ") + it.value().toString();
    m_log->appendPlainText(tr("Method (as the result states it):\n") + method.join(QLatin1Char('\n')));
    m_chart->setPoints(
        points, tr("%1: measured here against published").arg(root.value(QStringLiteral("publication")).toString()));
    // A row a figure, each with its name on the axis: room for every label.
    m_chart->widget()->setMinimumHeight(std::clamp(static_cast<int>(points.size()) * 26 + 130, 220, 560));
    m_error->hide();
    m_status->setText(tr("%1 figures from %2").arg(cells.size()).arg(QDir::toNativeSeparators(path)));
    return true;
}

}  // namespace blobbench
