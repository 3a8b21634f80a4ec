#pragma once

#include <QDialog>
#include <QSize>
#include <optional>

class QSpinBox;

namespace blobbench {

// Asked before a chart is exported as PNG or SVG: the size it is laid out at (the project's last
// one, 1600x900 at first), not the strip it has on screen.
class ExportSizeDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExportSizeDialog(QSize current, QWidget* parent = nullptr);
    QSize chosenSize() const;

private:
    QSpinBox* m_width;
    QSpinBox* m_height;
};

// The size chosen, or nothing when the user cancelled.
std::optional<QSize> askExportSize(QWidget* parent, QSize current);

}  // namespace blobbench
