// The landing page's store: server info, the create-draw form's progress and the admin's
// list of draws (paged, with archive and delete).

export class HomeState extends EventTarget {
  constructor() {
    super();
    this.info = null;          // { defaultDraw, lanUrl } or null
    this.infoLoaded = false;
    this.creating = false;
    this.createError = null;   // error code
    this.created = null;       // { code, hostKey, hostUrl }
    this.admin = {
      open: false,             // the list was asked for
      loading: false,
      error: null,             // error code
      draws: [],               // [{ code, title, created, rounds, lastActivity, archived }]
      next: null,              // cursor of the next page, or null
      busy: null,              // code of the draw being changed
      confirming: null,        // code whose deletion or archiving waits for confirmation
      confirmAction: null,     // 'delete' | 'archive': what the confirmation is for
      deleted: null,           // code just deleted (the notice)
    };
  }

  update(patch) {
    Object.assign(this, patch);
    this.dispatchEvent(new Event('change'));
  }

  updateAdmin(patch) {
    this.update({ admin: { ...this.admin, ...patch } });
  }
}
