// The copy only lazy views use (每日挑战's board, 好友房间's stream and links, 复盘's 托管
// marks): the part of the messages catalog (messages.js) that loads with those views, not
// with the page, so that the first load stays within P6's 40 KB.
// F13: the board of everyone lists a browser once it has played on a few earlier days.
// U18: an entry not listed yet says where it would stand and why, never a place beside a
// board that counts nobody.
export const dailyRank = (rank, players, listed) =>
  listed ? `第 ${rank} 名 / 共 ${players} 人` : `会排第 ${rank} 名（还没上公开榜）`;
export const dailyUnlisted = (rank, players, minDays) =>
  `公开排行榜只列出之前至少 ${minDays} 天也完成过每日挑战的玩家（免得新开的浏览器来刷榜），所以今天还没有列出你。` +
  `按技术损失，你会排在第 ${rank} 名${players ? `（榜上现在有 ${players} 人）` : "：榜上还没有别人"}。你和朋友们的排行榜照常有你。`;
/** The board of everyone's foot while it does not list this browser (U18). */
export const boardUnlisted = (players) => (players ? `公开榜上 ${players} 人，还没有列出你` : "公开榜上还没有人，也还没有列出你");
export const BOARD_EMPTY = "还没有人完成。";
export const BOARD_NOBODY_LISTED = "公开榜上还没有人。";
export const YOU_UNLISTED = "（你，未上榜）";
export const TIES =
  "排行榜按技术损失排名（越小越好），一样小时得分高的在前；技术损失和得分都一样就并列同一名次，谁先完成都一样。";

/** 好友房间's live stream, when it is not live (room.js): what the page says meanwhile.
 * A refusal (429, 503) shows the server's own message with `retrying` after it. */
export const ROOM_STREAM = {
  retrying: "和服务器的连接断了，正在重新连接……",
  later: "稍后会自动重新连接。",
  gone: "这个链接已经打不开这个房间了（房主可能换了新链接），请向房主要新的链接。",
};
/** U17: a room's address opened without its link (an address bar shared without the
 * #t= part): how to get in. */
export const ROOM_NO_LINK = "打不开这个房间：进房间要用房主发的邀请链接（房主在房间里点「复制链接」得到的完整链接，末尾带 #t=）。请向房主要这个链接再打开。";
/** 好友房间's new-room form: what 每回合秒数 means, in words a child can read. */
export const ROOM_TURN_NOTE = "每个人每回合最多想这么多秒。时间到了还没下完，电脑先替他下。";
/** U14: a tap in a room refused because the game went on first (a friend, 托管, or this
 * seat in another window): the room is read again and shown as it stands. */
export const ROOM_MOVED_ON = "这一步没有送出：这一局已经接着下了（朋友、托管或你在别的窗口），这里已换成现在的局面。";
export const ROOM_LINKS = {
  renew: "换新链接",
  note: "换新链接后，旧的邀请链接和观战链接都会失效。",
  // F27: removing a seat's person renewed the links (the old ones let them back in)
  removed: (url) => `已请他离座，旧的邀请链接和观战链接都已失效。还要请朋友来，请发这个新链接：${url}`,
};

/** K2: in 复盘, the decisions the computer made while the person was away (托管). */
export const PROXY_TAG = "托管";
export const PROXY_DECISION = "这一步是你不在时电脑托管替你下的，不算进你的准确率和技术损失。";
export const proxyLoss = (loss) => ` − 托管损失 ${loss.toFixed(1)}`;
export const proxyCount = (n) => `有 ${n} 个决策是电脑托管替你下的：复盘标出了它们，但不算在你的准确率里。`;
