// KeyboardAdapter's GNOME Shell extension for GNOME Shell 45 and later, whose extensions are ES
// modules. The installed extension.js is this text followed by keyboard-export.js.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Shell from 'gi://Shell';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as Config from 'resource:///org/gnome/shell/misc/config.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

export default class KeyboardAdapterExtension extends Extension {
    enable() {
        this._export = new KeyboardExport(this.path);
    }

    disable() {
        this._export?.destroy();
        this._export = null;
    }
}
