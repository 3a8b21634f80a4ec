#include "model/SeriesNaming.h"

#include "engine/wire/WireParameters.h"
#include "model/SampleJson.h"

namespace blobbench {
namespace {

const std::string kConnection = "connection";

const std::string kLink = "link";

// The link a sample was measured over, in a few words ("unshaped" where none was emulated).
std::string shortLink(const Sample& s) {
    const auto it = s.negotiated->find("link");
    return it == s.negotiated->end() ? std::string("unshaped") : shortLinkText(it->second);
}

// Every setting of one sample, the connection first. The four link_* parameters are one setting,
// "link", as the Runner applied it: a What-if check at 20 ms reads "link 20 ms", not four values.
std::map<std::string, std::string> settingsOf(const Sample& s) {
    std::map<std::string, std::string> out(s.parameters->begin(), s.parameters->end());
    for (const char* id :
         {wireparam::LatencyUp, wireparam::LatencyDown, wireparam::BandwidthUp, wireparam::BandwidthDown})
        out.erase(id);
    out[kLink] = shortLink(s);
    out[kConnection] = s.connection.empty() ? s.engine : s.connection;
    return out;
}

// The order settings are named in: what a user studies (the engine's tunables) first, how it was
// measured (the link, the counting) last.
std::vector<std::string> namingOrder(const std::set<std::string>& keys) {
    std::vector<std::string> out, method;
    for (const std::string& k : keys)
        (k == kLink || k == wireparam::Counting ? method : out).push_back(k);
    out.insert(out.end(), method.begin(), method.end());
    return out;
}

bool notInEffect(const Sample& s, const std::string& id) {
    for (const ParameterEffect& e : *s.effects) {
        if (e.id == id)
            return !e.inEffect;
    }
    return false;
}

// The values each setting takes over `samples`, a setting absent from a sample counted as "".
std::map<std::string, std::set<std::string>> valuesOver(const std::vector<Sample>& samples) {
    std::map<std::string, std::set<std::string>> out;
    std::set<std::string> keys;
    for (const Sample& s : samples) {
        for (const auto& [k, v] : settingsOf(s))
            keys.insert(k);
    }
    for (const Sample& s : samples) {
        const auto settings = settingsOf(s);
        for (const std::string& k : keys) {
            const auto it = settings.find(k);
            out[k].insert(it == settings.end() ? std::string() : it->second);
        }
    }
    return out;
}

QString joined(const std::set<std::string>& values) {
    QStringList parts;
    for (const std::string& v : values)
        parts << (v.empty() ? QStringLiteral("(unset)") : qs(v));
    return parts.join(QStringLiteral(", "));
}

}  // namespace

std::string shortLinkText(const std::string& describe) {
    if (describe.rfind("up ", 0) != 0)
        return describe;
    const auto down = describe.find(", down ");
    if (down == std::string::npos)
        return describe;
    std::string up = describe.substr(3, down - 3);
    if (up != describe.substr(down + 7))
        return describe;
    for (const std::string cut : {"unlimited + ", " + 0 ms"}) {
        if (const auto at = up.find(cut); at != std::string::npos && up.size() > cut.size())
            up.erase(at, cut.size());
    }
    return up;
}

QString shortParameterName(const std::string& id) {
    static const std::map<std::string, QString> names = {
        {"wire_compression", QStringLiteral("compression")},   {"max_inline_blob_size", QStringLiteral("inline")},
        {"max_blob_cache_size", QStringLiteral("blob cache")}, {"wire_crypt", QStringLiteral("crypt")},
        {"result_format", QStringLiteral("format")},           {"fetch_mode", QStringLiteral("fetch")},
        {"fetch_size", QStringLiteral("fetch size")},          {"wire_counting", QStringLiteral("counting")},
    };
    const auto it = names.find(id);
    return it != names.end() ? it->second : qs(id).replace(QLatin1Char('_'), QLatin1Char(' '));
}

QString shortParameterValue(const std::string& value) {
    if (value == "true")
        return QStringLiteral("on");
    if (value == "false")
        return QStringLiteral("off");
    return qs(value);
}

SeriesNaming::SeriesNaming(const std::vector<Sample>& samples) {
    for (const Sample& s : samples)
        add(s);
}

void SeriesNaming::Seen::add(const std::map<std::string, std::string>& settings) {
    // A setting seen for the first time was absent ("") from every sample before.
    for (const auto& [k, v] : settings) {
        const auto [it, inserted] = values.try_emplace(k);
        if (inserted && samples > 0)
            it->second.insert(std::string());
    }
    for (auto& [k, seen] : values) {
        const auto it = settings.find(k);
        seen.insert(it == settings.end() ? std::string() : it->second);
    }
    ++samples;
    keys.clear();
    for (const auto& [k, seen] : values) {
        if (seen.size() > 1)
            keys.insert(k);
    }
}

void SeriesNaming::add(const Sample& sample) {
    const auto settings = settingsOf(sample);
    m_all.add(settings);
    m_byConnection[settings.at(kConnection)].add(settings);
}

QString SeriesNaming::seriesKey(const Sample& sample) {
    QString key = qs(sample.scenarioId);
    for (const auto& [k, v] : settingsOf(sample))
        key += QLatin1Char('\x1f') + qs(k) + QLatin1Char('=') + qs(v);
    return key;
}

QString SeriesNaming::settingsText(const Sample& sample) const {
    const auto settings = settingsOf(sample);
    QStringList parts;
    // The connection first: results of two servers are the widest difference.
    if (m_all.keys.count(kConnection))
        parts << connectionName(settings.at(kConnection));
    const auto group = m_byConnection.find(settings.at(kConnection));
    if (group == m_byConnection.end())
        return parts.join(QStringLiteral(" · "));  // a sample not added: only its connection
    for (const std::string& k : namingOrder(group->second.keys)) {
        if (k == kConnection)
            continue;
        const auto it = settings.find(k);
        if (it == settings.end())
            continue;
        QString part = shortParameterName(k) + QLatin1Char(' ') + shortParameterValue(it->second);
        if (notInEffect(sample, k))
            part += QStringLiteral(" (not in effect)");
        parts << part;
    }
    return parts.join(QStringLiteral(" · "));
}

QString SeriesNaming::connectionName(const std::string& label) const {
    const auto name = m_names.find(label);
    return name != m_names.end() && !name->second.isEmpty() ? name->second : connectionText(label);
}

QString SeriesNaming::label(const Sample& sample) const {
    const QString title = sample.scenarioTitle.empty() ? qs(sample.scenarioId) : qs(sample.scenarioTitle);
    const QString settings = settingsText(sample);
    return settings.isEmpty() ? title : title + QStringLiteral(" · ") + settings;
}

QStringList SeriesNaming::differingKeys() const {
    std::set<std::string> keys;
    if (m_all.keys.count(kConnection))
        keys.insert(kConnection);
    for (const auto& [connection, seen] : m_byConnection)
        keys.insert(seen.keys.begin(), seen.keys.end());
    QStringList out;
    for (const std::string& k : keys)
        out << qs(k);
    return out;
}

QString connectionText(const std::string& label) {
    const auto colon = label.find(':');
    const auto scheme = label.find("://");
    // "postgres:" then "postgresql://": the scheme begins with the engine's name.
    if (colon != std::string::npos && scheme != std::string::npos && scheme > colon + 1) {
        const std::string engine = label.substr(0, colon);
        const std::string uriScheme = label.substr(colon + 1, scheme - colon - 1);
        if (!engine.empty() && uriScheme.starts_with(engine))
            return qs(label.substr(colon + 1));
    }
    return qs(label);
}

QStringList settingDifferences(const std::vector<Sample>& base, const std::vector<Sample>& candidate) {
    const auto before = valuesOver(base);
    const auto after = valuesOver(candidate);
    std::set<std::string> keys;
    for (const auto& [k, v] : before)
        keys.insert(k);
    for (const auto& [k, v] : after)
        keys.insert(k);
    QStringList out;
    for (const std::string& k : keys) {
        const auto b = before.find(k);
        const auto a = after.find(k);
        const std::set<std::string> none{std::string()};
        const auto& bv = b != before.end() ? b->second : none;
        const auto& av = a != after.end() ? a->second : none;
        if (bv != av)
            out << qs(k) + QStringLiteral(": ") + joined(bv) + QStringLiteral(" → ") + joined(av);
    }
    return out;
}

QStringList runSettingsTexts(const std::vector<const std::vector<Sample>*>& runs, bool withConnection) {
    std::vector<std::map<std::string, std::set<std::string>>> values;
    std::set<std::string> keys;
    for (const auto* samples : runs) {
        values.push_back(valuesOver(*samples));
        for (const auto& [k, v] : values.back())
            keys.insert(k);
    }
    // A setting differs when two runs with samples hold it with different values (absent = ""):
    // the connection among all runs, any other setting among the runs of the same connection(s).
    const std::set<std::string> absent{std::string()};
    const auto connectionOf = [&](const std::map<std::string, std::set<std::string>>& run) {
        return run.count(kConnection) ? run.at(kConnection) : absent;
    };
    const auto differsAmong = [&](const std::string& k, const std::set<std::string>* connection) {
        std::set<std::set<std::string>> variants;
        for (const auto& run : values) {
            if (!run.empty() && (connection == nullptr || connectionOf(run) == *connection))
                variants.insert(run.count(k) ? run.at(k) : absent);
        }
        return variants.size() > 1;
    };
    const bool connectionsDiffer = differsAmong(kConnection, nullptr);
    QStringList out;
    for (const auto& run : values) {
        std::set<std::string> differing;
        if (connectionsDiffer && run.count(kConnection))
            differing.insert(kConnection);
        const std::set<std::string> connection = connectionOf(run);
        for (const std::string& k : keys) {
            if (k != kConnection && differsAmong(k, &connection))
                differing.insert(k);
        }
        QStringList parts;
        if (differing.erase(kConnection) > 0 && withConnection) {  // the connection first
            QStringList shown;
            for (const std::string& value : run.at(kConnection))
                shown << (value.empty() ? QStringLiteral("(unset)") : connectionText(value));
            parts << shown.join(QLatin1Char('/'));
        }
        for (const std::string& k : namingOrder(differing)) {
            const auto it = run.find(k);
            if (it == run.end())
                continue;
            QStringList shown;
            for (const std::string& value : it->second)
                shown << (value.empty() ? QStringLiteral("(unset)") : shortParameterValue(value));
            parts << shortParameterName(k) + QLatin1Char(' ') + shown.join(QLatin1Char('/'));
        }
        out << parts.join(QStringLiteral(" · "));
    }
    return out;
}

}  // namespace blobbench
