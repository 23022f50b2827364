// A chat screen: the messages, and at the bottom an input bar that ends on the on-screen
// keyboard's top edge. The bar is the only thing painted #3465a4, on a window of #f4f6fa, so that
// a screenshot shows where it ends.
import QtQuick
import QtQuick.Window
import QtQuick.Controls.Basic
import QtQuick.Layouts
import KeyboardAdapter 1.0
import Kbchat 1.0

Window {
    id: root
    title: "kbchat"
    color: "#f4f6fa"

    // How far up the bar goes: from the window's bottom to the keyboard's top edge. The keyboard
    // may be moved up off the bottom edge, so its top counts, not its height.
    readonly property real inset: KeyboardAdapter.keyboardRectangle.height > 0
        ? Math.max(0, height - KeyboardAdapter.keyboardRectangle.y) : 0

    Component.onCompleted: KeyboardAdapter.window = root

    ListView {
        id: messages
        anchors { left: parent.left; right: parent.right; top: parent.top; bottom: bar.top }
        clip: true
        spacing: 8
        topMargin: 12
        bottomMargin: 12
        // The newest message stays in sight when the bar moves up.
        onHeightChanged: positionViewAtEnd()
        model: ListModel {
            id: conversation
            ListElement { body: "Are you on the train already?"; mine: false }
            ListElement { body: "Yes, two stops to go."; mine: true }
            ListElement { body: "Great, I'll wait by the bookshop."; mine: false }
            ListElement { body: "Type a reply: the bar stays above the on-screen keyboard."; mine: false }
        }
        delegate: Item {
            width: ListView.view.width
            height: bubble.height
            Rectangle {
                id: bubble
                x: model.mine ? parent.width - width - 12 : 12
                width: Math.min(text.implicitWidth + 24, parent.width * 0.7)
                height: text.implicitHeight + 16
                radius: 10
                color: model.mine ? "#d8efc8" : "#ffffff"
                border.color: "#d5d9e0"
                Text {
                    id: text
                    anchors { fill: parent; margins: 8; leftMargin: 12; rightMargin: 12 }
                    text: model.body
                    wrapMode: Text.Wrap
                    color: "#1d1f23"
                    font.pixelSize: 15
                }
            }
        }
    }

    Rectangle {
        id: bar
        anchors { left: parent.left; right: parent.right; bottom: parent.bottom; bottomMargin: root.inset }
        // Its own rectangle reaches its bottom edge (the spacing is the row's margins), so what it
        // reports is exactly where it ends.
        height: row.implicitHeight + 12
        color: "#3465a4"

        RowLayout {
            id: row
            anchors { fill: parent; margins: 6 }
            spacing: 6
            TextField {
                id: field
                Layout.fillWidth: true
                placeholderText: "Message"
                onAccepted: root.send()
            }
            Button {
                text: "Send"
                onClicked: root.send()
            }
        }
    }

    function send() {
        if (field.text.length === 0)
            return
        conversation.append({ body: field.text, mine: true })
        field.clear()
        messages.positionViewAtEnd()
    }

    // `bar bottom Y inset N` once per change, after the bar is laid out: Y is its bottom edge in
    // the screen's pixels, N how much of the window's bottom it leaves to the keyboard.
    property string reported: ""
    function report() {
        // Laid out once the content has the window's size: a window being shown has its size
        // before its content is resized to it.
        if (!visible || contentItem.width !== width || contentItem.height !== height)
            return
        const bottom = Math.round(KeyboardAdapter.mapToScreen(Qt.point(0, bar.y + bar.height)).y)
        const windowBottom = Math.round(KeyboardAdapter.mapToScreen(Qt.point(0, height)).y)
        const line = "bar bottom " + bottom + " inset " + (windowBottom - bottom)
        if (line !== reported) {
            reported = line
            Console.print(line)
        }
    }
    // Later, once the bindings that move the bar have all run.
    onVisibleChanged: Qt.callLater(report)
    onXChanged: Qt.callLater(report)
    onYChanged: Qt.callLater(report)
    Connections {
        target: root.contentItem
        function onHeightChanged() { Qt.callLater(root.report) }
    }
    Connections {
        target: bar
        function onYChanged() { Qt.callLater(root.report) }
        function onHeightChanged() { Qt.callLater(root.report) }
    }
}
