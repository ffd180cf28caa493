// Agent Zero's API helpers, as the pages use them: JSON posted to /api/<endpoint>.
function url(endpoint) {
    const path = endpoint.replace(/^\/+/, "");
    return path.startsWith("api/") ? `/${path}` : `/api/${path}`;
}

export async function fetchApi(endpoint, request) {
    return await fetch(url(endpoint), request || {});
}

export async function callJsonApi(endpoint, data) {
    const response = await fetchApi(endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(data),
    });
    if (!response.ok) throw new Error(await response.text());
    return await response.json();
}
