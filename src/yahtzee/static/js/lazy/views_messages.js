// The copy only a lazy view uses (每日挑战's board): the part of the messages catalog
// (messages.js) that loads with that view, not with the page, so that the first load
// stays within P6's 40 KB.
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
