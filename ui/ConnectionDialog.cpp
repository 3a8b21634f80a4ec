#include "ui/ConnectionDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "engine/drivers/Registry.h"

namespace blobbench {

ConnectionDialog::ConnectionDialog(QWidget* parent)
    : QDialog(parent),
      m_name(new QLineEdit(this)),
      m_engine(new QComboBox(this)),
      m_target(new QLineEdit(this)),
      m_user(new QLineEdit(this)),
      m_password(new QLineEdit(this)),
      m_remember(new QCheckBox(tr("Remember in the system &keyring"), this)),
      m_role(new QLineEdit(this)),
      m_charset(new QLineEdit(this)),
      m_clientLibrary(new QLineEdit(this)),
      m_hint(new QLabel(this)) {
    setWindowTitle(tr("Connection"));
    for (const Driver* driver : allDrivers()) {
        m_engine->addItem(QString::fromStdString(driver->displayName()), QString::fromStdString(driver->id()));
    }
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setObjectName(QStringLiteral("password"));
    m_password->setPlaceholderText(tr("kept for this session, never in the project"));
    m_remember->setObjectName(QStringLiteral("rememberPassword"));
    m_remember->setToolTip(
        tr("Keep the password in the system keyring (service “blobbench”), never in the project "
           "or the settings"));
    m_target->setPlaceholderText(tr("sqlite:/path/file.sqlite, postgresql://host/db, inet://host/db.fdb"));
    m_charset->setPlaceholderText(tr("engine default"));
    m_clientLibrary->setPlaceholderText(tr("system library"));
    m_hint->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("&Name"), m_name);
    form->addRow(tr("&Engine"), m_engine);
    form->addRow(tr("&Target"), m_target);
    form->addRow(tr("&User"), m_user);
    form->addRow(tr("&Password"), m_password);
    form->addRow(QString(), m_remember);
    form->addRow(tr("&Role"), m_role);
    form->addRow(tr("&Charset"), m_charset);
    form->addRow(tr("Client &library"), m_clientLibrary);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_hint);
    layout->addWidget(buttons);
    connect(m_engine, &QComboBox::currentIndexChanged, this, &ConnectionDialog::engineChanged);
    const auto validate = [this, buttons] {
        buttons->button(QDialogButtonBox::Ok)
            ->setEnabled(!m_name->text().trimmed().isEmpty() && !m_target->text().trimmed().isEmpty());
    };
    connect(m_name, &QLineEdit::textChanged, this, validate);
    connect(m_target, &QLineEdit::textChanged, this, validate);
    validate();
    engineChanged();
    resize(520, sizeHint().height());
}

void ConnectionDialog::engineChanged() {
    const Driver& driver = driverById(m_engine->currentData().toString().toStdString());
    const bool networked = driver.networked();
    m_user->setEnabled(networked);
    m_password->setEnabled(networked);
    m_remember->setEnabled(networked);
    m_role->setEnabled(networked);
    m_hint->setText(networked ? tr("At connect time: the password typed here, else the system keyring, else the "
                                   "engine's usual places (ISC_PASSWORD, PGPASSWORD, .pgpass), else you are asked.")
                              : tr("Embedded engine: the target is a file; no user or password."));
}

void ConnectionDialog::setProfile(const ConnectionProfile& profile, const QString& password) {
    m_original = profile;
    m_name->setText(profile.name);
    const int engine = m_engine->findData(profile.engine);
    m_engine->setCurrentIndex(engine >= 0 ? engine : 0);
    m_target->setText(profile.target);
    m_user->setText(profile.user);
    m_password->setText(password);
    m_role->setText(profile.role);
    m_charset->setText(profile.charset);
    m_clientLibrary->setText(profile.clientLibrary);
}

ConnectionProfile ConnectionDialog::profile() const {
    ConnectionProfile p = m_original;  // keeps what this dialog does not edit (wire tap, link)
    p.name = m_name->text().trimmed();
    p.engine = m_engine->currentData().toString();
    p.target = m_target->text().trimmed();
    p.user = m_user->text().trimmed();
    p.role = m_role->text().trimmed();
    p.charset = m_charset->text().trimmed();
    p.clientLibrary = m_clientLibrary->text().trimmed();
    return p;
}

QString ConnectionDialog::password() const {
    return m_password->text();
}

std::optional<ConnectionDialog::Answer> ConnectionDialog::askPassword(QWidget* parent,
                                                                      const ConnectionProfile& profile) {
    QDialog dialog(parent);
    dialog.setWindowTitle(tr("Password"));
    auto* layout = new QVBoxLayout(&dialog);
    auto* label = new QLabel(
        tr("Password for %1 on %2 (%3):")
            .arg(profile.user.isEmpty() ? tr("the default user") : profile.user, profile.target, profile.name));
    label->setWordWrap(true);
    layout->addWidget(label);
    auto* password = new QLineEdit;
    password->setEchoMode(QLineEdit::Password);
    layout->addWidget(password);
    auto* remember = new QCheckBox(tr("Remember in the system &keyring"));
    layout->addWidget(remember);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(420, dialog.sizeHint().height());
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return Answer{password->text(), remember->isChecked()};
}

bool ConnectionDialog::rememberPassword() const {
    return m_remember->isEnabled() && m_remember->isChecked();
}

void ConnectionDialog::setRememberPassword(bool on) {
    m_remember->setChecked(on);
}

}  // namespace blobbench
