#include "ui/ExportSizeDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QPushButton>
#include <QSpinBox>

#include "ui/ChartSettings.h"

namespace blobbench {

ExportSizeDialog::ExportSizeDialog(QSize current, QWidget* parent)
    : QDialog(parent), m_width(new QSpinBox), m_height(new QSpinBox) {
    setWindowTitle(tr("Export size"));
    for (QSpinBox* side : {m_width, m_height}) {
        side->setRange(kMinExportSide, kMaxExportSide);
        side->setSuffix(tr(" px"));
        side->setSingleStep(100);
    }
    m_width->setObjectName(QStringLiteral("exportWidth"));
    m_height->setObjectName(QStringLiteral("exportHeight"));
    m_width->setValue(current.width());
    m_height->setValue(current.height());
    auto* form = new QFormLayout(this);
    form->addRow(tr("Width:"), m_width);
    form->addRow(tr("Height:"), m_height);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    QPushButton* reset = buttons->addButton(tr("%1 x %2").arg(kChartExportSize.width()).arg(kChartExportSize.height()),
                                            QDialogButtonBox::ResetRole);
    reset->setToolTip(tr("The default export size"));
    connect(reset, &QPushButton::clicked, this, [this] {
        m_width->setValue(kChartExportSize.width());
        m_height->setValue(kChartExportSize.height());
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

QSize ExportSizeDialog::chosenSize() const {
    return {m_width->value(), m_height->value()};
}

std::optional<QSize> askExportSize(QWidget* parent, QSize current) {
    ExportSizeDialog dialog(current, parent);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return dialog.chosenSize();
}

}  // namespace blobbench
