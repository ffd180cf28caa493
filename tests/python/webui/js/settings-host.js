// The plugin settings modal as Agent Zero hosts a plugin's config.html (see ../README.md):
// written for the test.
import { fetchApi } from "/js/api.js";

const PLUGIN = new URLSearchParams(location.search).get("plugin") || "claude_tool_bridge";

async function plugins(body) {
    const response = await fetchApi("/plugins", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ plugin_name: PLUGIN, project_name: "", agent_profile: "", ...body }),
    });
    return await response.json().catch(() => ({}));
}

const model = {
    projectName: "",
    agentProfileKey: "",
    settings: {},
    settingsSnapshotJson: "",
    saved: 0,

    _toComparableJson(value) {
        try {
            return JSON.stringify(value ?? {});
        } catch {
            return "";
        }
    },

    get hasUnsavedChanges() {
        return this._toComparableJson(this.settings) !== (this.settingsSnapshotJson || "");
    },

    async loadSettings() {
        const result = await plugins({ action: "get_config" });
        this.settings = result.ok ? (result.data || {}) : {};
        this.settingsSnapshotJson = this._toComparableJson(this.settings);
    },

    async resetToDefault() {
        const result = await plugins({ action: "get_default_config" });
        if (result.ok) this.settings = result.data || {};
    },

    async save() {
        const result = await plugins({ action: "save_config", settings: this.settings });
        if (result.ok) {
            this.settingsSnapshotJson = this._toComparableJson(this.settings);
            this.saved += 1;
        }
    },
};

// A component: its inline module scripts first (their root imports made absolute), its
// styles, then its markup, appended where Alpine picks it up inside the modal's scope.
async function importComponent(path, target) {
    const html = await (await fetch(path)).text();
    const doc = new DOMParser().parseFromString(html, "text/html");
    const assets = "style, script, link[rel='stylesheet']";
    const loads = [];
    for (const node of doc.querySelectorAll(assets)) {
        if (node.nodeName === "SCRIPT" && node.type === "module" && !node.src) {
            const code = node.textContent.replace(
                /import\s+([^'"]+)\s+from\s+["']([^"']+)["']/g,
                (_, names, from) => `import ${names} from "${new URL(from, location.origin).href}"`);
            const blob = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
            loads.push(import(blob).finally(() => URL.revokeObjectURL(blob)));
        } else {
            target.appendChild(node.cloneNode(true));
        }
    }
    await Promise.all(loads);
    for (const node of Array.from(doc.body.childNodes)) {
        if (!node.matches?.(assets)) target.appendChild(node.cloneNode(true));
    }
}

document.addEventListener("alpine:init", () => {
    window.pluginSettings = window.Alpine.reactive(model);
});
await new Promise((resolve) => {
    const script = document.createElement("script");
    script.src = "/vendor/alpine.min.js";
    script.onload = resolve;
    document.head.appendChild(script);
});
await new Promise((resolve) => setTimeout(resolve, 0));
await window.pluginSettings.loadSettings();
await importComponent(`/plugins/${PLUGIN}/webui/config.html`, document.getElementById("settings-body"));
document.body.dataset.ready = "true";
