#include "model/SeriesNaming.h"

#include "model/SampleJson.h"

namespace blobbench {
namespace {

const std::string kConnection = "connection";

// Every setting of one sample, the connection first.
std::map<std::string, std::string> settingsOf(const Sample& s) {
    std::map<std::string, std::string> out(s.parameters->begin(), s.parameters->end());
    out[kConnection] = s.connection.empty() ? s.engine : s.connection;
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

void SeriesNaming::add(const Sample& sample) {
    const auto settings = settingsOf(sample);
    // A setting seen for the first time was absent ("") from every sample before.
    for (const auto& [k, v] : settings) {
        const auto [it, inserted] = m_values.try_emplace(k);
        if (inserted && m_samples > 0)
            it->second.insert(std::string());
    }
    for (auto& [k, values] : m_values) {
        const auto it = settings.find(k);
        values.insert(it == settings.end() ? std::string() : it->second);
    }
    ++m_samples;
    m_keys.clear();
    for (const auto& [k, values] : m_values) {
        if (values.size() > 1)
            m_keys.insert(k);
    }
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
    if (m_keys.count(kConnection))
        parts << qs(settings.at(kConnection));
    for (const std::string& k : m_keys) {
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

QString SeriesNaming::label(const Sample& sample) const {
    const QString title = sample.scenarioTitle.empty() ? qs(sample.scenarioId) : qs(sample.scenarioTitle);
    const QString settings = settingsText(sample);
    return settings.isEmpty() ? title : title + QStringLiteral(" · ") + settings;
}

QStringList SeriesNaming::differingKeys() const {
    QStringList out;
    for (const std::string& k : m_keys)
        out << qs(k);
    return out;
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

QStringList runSettingsTexts(const std::vector<const std::vector<Sample>*>& runs) {
    std::vector<std::map<std::string, std::set<std::string>>> values;
    std::set<std::string> keys;
    for (const auto* samples : runs) {
        values.push_back(valuesOver(*samples));
        for (const auto& [k, v] : values.back())
            keys.insert(k);
    }
    // A setting differs when two runs with samples hold it with different values (absent = "").
    const std::set<std::string> absent{std::string()};
    std::set<std::string> differing;
    for (const std::string& k : keys) {
        std::set<std::set<std::string>> variants;
        for (const auto& run : values) {
            if (!run.empty())
                variants.insert(run.count(k) ? run.at(k) : absent);
        }
        if (variants.size() > 1)
            differing.insert(k);
    }
    QStringList out;
    for (const auto& run : values) {
        QStringList parts;
        for (const std::string& k : differing) {
            const auto it = run.find(k);
            if (it == run.end())
                continue;
            QStringList shown;
            for (const std::string& value : it->second)
                shown << (value.empty() ? QStringLiteral("(unset)") : shortParameterValue(value));
            const QString text = shown.join(QLatin1Char('/'));
            parts << (k == kConnection ? text : shortParameterName(k) + QLatin1Char(' ') + text);
        }
        out << parts.join(QStringLiteral(" · "));
    }
    return out;
}

}  // namespace blobbench
