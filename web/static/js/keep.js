// Keeping tickets (Europe and London): see API.md, "Keeps answer a deal".

import { getJSON } from "./api.js";

// A keep answers a deal: the first tickets, tickets drawn in a turn, or tickets to enter again
// after the host settled a clash. With no deal open the player has just drawn tickets: the draw
// (the turn's action) is sent first, then the keep.
export async function keepTickets(app, color, tickets) {
  let deal = null;
  try {
    deal = (await getJSON(`/api/players/${encodeURIComponent(color)}/tickets`)).deal;
  } catch {
    deal = null;
  }
  if (!deal && !(await app.act({ type: "draw_tickets", player: color }))) return null;
  return app.act({ type: "keep_tickets", player: color, tickets });
}
