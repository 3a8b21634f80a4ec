// libFuzzer target for the writers' escaping: a sample whose text fields hold the fuzzer's bytes
// is written as CSV (RFC 4180) and as a Markdown summary. The CSV must parse back to one header and
// one record of the same width with the texts unchanged; every Markdown table row must have as
// many cell borders as its header. Each input also runs in two long forms of 100 kB (LongInput.h).
#include <unistd.h>

#include <QFile>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "LongInput.h"
#include "model/MarkdownExport.h"
#include "model/SampleJson.h"

using namespace blobbench;

namespace {

// RFC 4180: fields separated by commas, records by CRLF or LF, quoted fields may hold anything
// with quotes doubled. Returns false for text that is not valid CSV.
bool parseCsv(const QString& text, std::vector<QStringList>& records) {
    QStringList record;
    QString field;
    bool quoted = false;
    bool wasQuoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                    field += c;
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
            continue;
        }
        if (c == QLatin1Char('"')) {
            if (!field.isEmpty() || wasQuoted) {
                return false;  // a quote inside an unquoted field
            }
            quoted = wasQuoted = true;
        } else if (c == QLatin1Char(',')) {
            record << field;
            field.clear();
            wasQuoted = false;
        } else if (c == QLatin1Char('\n') || c == QLatin1Char('\r')) {
            if (c == QLatin1Char('\r') && (i + 1 >= text.size() || text[i + 1] != QLatin1Char('\n'))) {
                return false;  // a bare CR outside quotes
            }
            if (c == QLatin1Char('\r')) {
                ++i;
            }
            record << field;
            records.push_back(record);
            record.clear();
            field.clear();
            wasQuoted = false;
        } else {
            if (wasQuoted) {
                return false;  // text after a closing quote
            }
            field += c;
        }
    }
    if (quoted) {
        return false;
    }
    if (!field.isEmpty() || !record.isEmpty()) {
        record << field;
        records.push_back(record);
    }
    return true;
}

void fuzzOne(const std::string& text) {
    const QString expected = QString::fromStdString(text);  // the writers see text as UTF-8
    Sample s;
    s.runId = "2026-11-30T00:00:00.000Z";
    s.scenarioId = text;
    s.scenarioTitle = text;
    s.engine = "sqlite";
    s.connection = text;
    s.error = text;
    s.status = SampleStatus::Failed;
    s.parameters = {{"journal_mode", text}};

    static const QString path = QStringLiteral("/dev/shm/blobbench-exports-fuzz-%1.csv").arg(getpid());
    writeSamplesCsv(path, {s});
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        std::abort();
    }
    const QString csv = QString::fromUtf8(file.readAll());
    std::vector<QStringList> records;
    if (!parseCsv(csv, records) || records.size() != 2 || records[0].size() != records[1].size()) {
        std::abort();
    }
    const qsizetype connection = records[0].indexOf(QStringLiteral("connection"));
    const qsizetype error = records[0].indexOf(QStringLiteral("error"));
    if (connection < 0 || error < 0 || records[1][connection] != expected || records[1][error] != expected) {
        std::abort();
    }

    RunRecord run;
    run.runId = QString::fromStdString(s.runId);
    run.connectionName = expected;
    run.outcome = expected;
    run.samples = {s};
    const QStringList lines = markdownRunSummary(run).split(QLatin1Char('\n'));
    qsizetype borders = -1;
    for (const QString& line : lines) {
        if (!line.startsWith(QLatin1Char('|'))) {
            borders = -1;  // the table ended
            continue;
        }
        const qsizetype n = line.count(QLatin1Char('|'));
        if (borders >= 0 && n != borders) {
            std::abort();  // a cell's text broke the table
        }
        borders = n;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzzOne(text);
    for (const std::string& longer : fuzz::longForms(text)) {
        fuzzOne(longer);
    }
    return 0;
}

#include "FuzzMain.h"
