// Thin fetch wrappers for the API in docs/api.md. Every failure becomes an ApiError whose
// `message` is fit to show a player (the server's Chinese message when it sent one).

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

async function request(method, path, body) {
  const init = {
    method,
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "network", "连不上服务器，请检查网络后再试。");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const err = data && data.error ? data.error : null;
    throw new ApiError(
      response.status,
      err && err.code ? err.code : "http_" + response.status,
      err && err.message ? err.message : `服务器出错了（${response.status}），请稍后再试。`,
    );
  }
  return data;
}

const id = (gameId) => encodeURIComponent(gameId);

export const api = {
  records: () => request("GET", "/api/records"),
  current: () => request("GET", "/api/games/current"),
  game: (gameId) => request("GET", `/api/games/${id(gameId)}`),
  // replace: abandon the unfinished game; without it the server answers 409
  // game_in_progress while one is saved (F2).
  create: (mode, difficulty, replace = false) =>
    request("POST", "/api/games", {
      mode,
      ...(mode === "vs_computer" ? { difficulty } : {}),
      ...(replace ? { replace: true } : {}),
    }),
  roll: (game, hold) => request("POST", `/api/games/${id(game.id)}/roll`, { version: game.version, hold }),
  score: (game, category, confirmZero) =>
    request("POST", `/api/games/${id(game.id)}/score`, {
      version: game.version,
      category,
      confirm_zero: confirmZero,
    }),
  hint: (game) => request("POST", `/api/games/${id(game.id)}/hint`, { version: game.version }),
};
