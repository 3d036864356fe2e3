// The game's names, limits and defaults, as the server embeds them in index.html (a JSON
// data block, the same object as GET /api/config). The page keeps no copy of any of them.

export const CONFIG = JSON.parse(document.getElementById("game-config").textContent);
