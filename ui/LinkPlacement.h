#pragma once

#include <QObject>

class QTabWidget;
class QVBoxLayout;

namespace blobbench {

class LinkPanel;

// Where the Link emulation group sits in the window's side column. Where the column is tall, below
// the tunables, never scrolled away; where it is short (a 1366x768 laptop: the tunables had two
// rows and a half), in a tab of its own beside Parameters, whose title says the link ("Link: 20 ms")
// so its state stays in view. Decided again whenever the column changes height.
class LinkPlacement : public QObject {
    Q_OBJECT
public:
    // Below this height of the side column, the link has a tab of its own.
    static constexpr int kTabBelowHeight = 270;

    LinkPlacement(QTabWidget* tabs, QVBoxLayout* underTunables, LinkPanel* link);

    bool inTab() const { return m_inTab; }
    void updateTitle();  // after the link or the connection changed

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void place();

    QTabWidget* m_tabs;
    QVBoxLayout* m_under;
    LinkPanel* m_link;
    QWidget* m_page = nullptr;  // the tab's page, holding the link while it is in a tab
    bool m_inTab = false;
};

}  // namespace blobbench
