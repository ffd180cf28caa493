// The chat as Agent Zero's web UI draws its log (see ../README.md): written for the test.
import { callJsonApi } from "/js/api.js";

const history = document.getElementById("chat-history");
const CODES = { agent: "GEN", tool: "TOOL", code_exe: "EXE", warning: "WRN", error: "ERR", info: "INF", util: "UTL" };

// A step's title: the heading without Agent Zero's `icon://name[label]` markers.
function titleOf(heading) {
    return String(heading ?? "")
        .replace(/icon:\/\/[a-zA-Z0-9_]+(\[(?:\\.|[^\]])*\])?\s*/g, "")
        .replace(/\s+/g, " ")
        .trim();
}

function lastGroup() {
    const last = history.lastElementChild;
    return last && last.classList.contains("process-group") ? last : null;
}

function isComplete(group) {
    return !!group.querySelector(".process-group-response");
}

function newGroup() {
    const group = document.createElement("div");
    group.className = "process-group";
    group.innerHTML = '<div class="process-group-header"><span class="step-badge"></span>' +
        '<span class="group-title"></span></div><div class="process-steps"></div>';
    history.appendChild(group);
    return group;
}

function updateHeader(group) {
    const steps = group.querySelectorAll(".process-step");
    const badge = group.querySelector(".step-badge");
    if (isComplete(group)) badge.textContent = "END";
    else if (steps.length) badge.textContent = steps[steps.length - 1].dataset.code;
    const agents = group.querySelectorAll('.process-step[data-log-type="agent"] .step-title');
    if (agents.length) group.querySelector(".group-title").textContent = agents[agents.length - 1].textContent;
}

function drawStep(item, id) {
    let step = document.getElementById(`process-step-${id}`);
    if (!step) {
        let group = lastGroup();
        if (!group || isComplete(group)) group = newGroup();
        step = document.createElement("div");
        step.id = `process-step-${id}`;
        step.className = "process-step";
        step.innerHTML = '<span class="step-badge"></span> <span class="step-title"></span>' +
            ' <span class="tool-name-badge"></span><div class="step-thoughts"></div><div class="step-line"></div>';
        group.querySelector(".process-steps").appendChild(step);
    }
    const kvps = item.kvps || {};
    step.dataset.logType = item.type;
    step.dataset.code = CODES[item.type] || item.type.toUpperCase();
    step.querySelector(".step-badge").textContent = step.dataset.code;
    step.querySelector(".step-title").textContent = titleOf(item.heading);
    step.querySelector(".tool-name-badge").textContent = kvps.tool_name || "";
    const thoughts = kvps.thoughts;
    step.querySelector(".step-thoughts").textContent = Array.isArray(thoughts) ? thoughts.join("\n") : (thoughts || "");
    step.querySelector(".step-line").textContent = kvps.step || "";
    updateHeader(step.closest(".process-group"));
}

function drawAnswer(item, id) {
    let answer = document.getElementById(`message-${id}`);
    if (!answer) {
        answer = document.createElement("div");
        answer.id = `message-${id}`;
        answer.className = "process-group-response message-agent-response";
        const group = lastGroup();
        (group || history).appendChild(answer);
    }
    answer.textContent = item.content || "";
    answer.dataset.finished = String(!!(item.kvps || {}).finished);
    const group = answer.closest(".process-group");
    if (group) updateHeader(group);
}

function drawUser(item, id) {
    const message = document.createElement("div");
    message.id = `message-${id}`;
    message.className = "message-user";
    message.textContent = item.content || "";
    history.appendChild(message);
}

export function setMessages(items) {
    for (const item of items) {
        const id = item.id || String(item.no);
        if (item.type === "response") drawAnswer(item, id);
        else if (item.type === "user") drawUser(item, id);
        else drawStep(item, id);
    }
}

const result = await callJsonApi("poll", {});
setMessages(result.logs || []);
document.body.dataset.ready = "true";
