//! What a flow has learned from its packets: player names, the tic reference for 8-bit tics,
//! the client's node and player numbers.

/// MAXPLAYERS, 32 in every release (STJr/SRB2 `src/doomdef.h`).
pub(crate) const MAX_PLAYERS: usize = 32;

/// What a flow has learned so far, used to name players and expand 8-bit tics.
#[derive(Debug, Clone, Default)]
pub(crate) struct State {
    /// Player number → name (from XD_NAMEANDCOLOR, XD_ADDPLAYER, PT_PLAYERINFO, PT_SERVERCFG).
    pub names: Vec<Option<String>>,
    /// Absolute tic reference for expanding 8-bit tics (PT_SERVERCFG gametic, then decoded tics).
    pub ref_tic: Option<u32>,
    /// Highest absolute tic already decoded in a PT_SERVERTICS of this flow.
    pub last_tic: Option<u32>,
    /// Node number the server gave this flow's client (PT_SERVERCFG `clientnode`).
    pub client_node: Option<u8>,
    /// The client's player numbers (first, second local player), from XD_ADDPLAYER.
    pub client_players: [Option<u8>; 2],
    /// Name the client asked to join with (2.2 PT_CLIENTJOIN), until XD_ADDPLAYER binds it.
    pub join_name: Option<String>,
    pub tics_seen: u64,
}

impl State {
    pub fn name(&self, player: u8) -> Option<&str> {
        self.names.get(player as usize)?.as_deref()
    }
    pub fn set_name(&mut self, player: u8, name: &[u8]) {
        if player as usize >= MAX_PLAYERS {
            return;
        }
        if self.names.len() < MAX_PLAYERS {
            self.names.resize(MAX_PLAYERS, None);
        }
        self.names[player as usize] = Some(String::from_utf8_lossy(name).into_owned());
    }
    /// "Sonic (1)" or "player 1".
    pub fn who(&self, player: u8) -> String {
        match self.name(player) {
            Some(n) => n.to_string(),
            None => format!("player {player}"),
        }
    }
    /// The issuing player's name, or "client" when the player is not known.
    pub fn who_or_client(&self, player: Option<u8>) -> String {
        match player {
            Some(p) => self.who(p),
            None => "client".into(),
        }
    }
    /// XD_ADDPLAYER gave player `num` to `node`: when that is this flow's client, its commands
    /// are from now on that player's (and an unnamed first player takes the join name).
    pub fn added_player(&mut self, node: u8, num: u8, second: bool, named: bool) {
        if Some(node) != self.client_node || num as usize >= MAX_PLAYERS {
            return;
        }
        self.client_players[second as usize] = Some(num);
        if !named
            && !second
            && let Some(j) = self.join_name.clone()
        {
            self.set_name(num, j.as_bytes());
        }
    }
    /// Expands an 8-bit tic against the flow's reference, if it has one.
    pub fn expand(&self, low: u8) -> Option<u32> {
        self.ref_tic.map(|r| expand_tic(low, r))
    }
    /// Records the last tic of a decoded PT_SERVERTICS as the newest known tic.
    pub fn saw_tics(&mut self, last: u32) {
        if self.last_tic.is_none_or(|b| last > b) {
            self.last_tic = Some(last);
        }
        if self.ref_tic.is_none_or(|b| last > b) {
            self.ref_tic = Some(last);
        }
    }
}

/// Expands an 8-bit tic against a reference: the reference's high bits, then ±256 when the
/// difference exceeds 64 (STJr/SRB2 `src/d_clisrv.c` `ExpandTics`).
pub(crate) fn expand_tic(low: u8, reference: u32) -> u32 {
    let mut t = (reference & !0xff) | low as u32;
    let diff = t as i64 - reference as i64;
    if diff > 64 && t >= 256 {
        t -= 256;
    } else if diff < -64 {
        t = t.wrapping_add(256);
    }
    t
}
