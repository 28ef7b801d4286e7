// Linux glue: the status line, registry defaults, and the data files found beside the library.
#include <dlfcn.h>
#include <libgen.h>
#include <string>
#include "engine.h"
#include "checkersGui.h"
#include "registry.h"
#include "cb_interface.h"

CheckersGUI GUI;

void DisplayText(const char* text)
{
	if (checkerBoard.infoString) {
		strncpy(checkerBoard.infoString, text, 1023);
		checkerBoard.infoString[1023] = 0;
	}
}

void reg_set_int(char*, int) {}
int reg_get_int(char*, int*) { return 0; }
void reg_set_string(char*, char*) {}
int reg_get_string(char*, char*, int) { return 0; }
void save_hashsize(int) {}
void save_book_setting(int) {}
void save_dbpath(char*) {}
void save_enable_wld(int) {}
void save_dbmbytes(int) {}
void save_max_dbpieces(int) {}
int get_hashsize(int*) { return 0; }
int get_book_setting(int*) { return 0; }
int get_dbpath(char*, int) { return 0; }
int get_enable_wld(int* e) { *e = 0; return 1; }
int get_dbmbytes(int*) { return 0; }
int get_max_dbpieces(int*) { return 0; }

int guinn_getmove(int board[8][8], int color, double maxtime, char str[1024], int* playnow, int info, int moreinfo, struct CBmove* move);

extern "C" int getmove(int board[8][8], int color, double maxtime, char str[1024], int* playnow, int info, int moreinfo, struct CBmove* move)
{
	static bool started = false;
	const bool first = !started;
	if (first) {
		// The nets, the book and the database are read from the working directory: the library's own.
		Dl_info where;
		if (dladdr((void*)&getmove, &where) && where.dli_fname) {
			std::string path(where.dli_fname);
			if (chdir(dirname(&path[0])) != 0) {}
		}
		started = true;
	}
	int result = guinn_getmove(board, color, maxtime, str, playnow, info, moreinfo, move);
	if (first) {
		// The engine initialises itself on its first move, without a database under CheckerBoard: load its own.
		InitializeGuiDatabases(engine.dbInfo);
	}
	return result;
}

int guinn_enginecommand(char str[256], char reply[1024]);
extern "C" int enginecommand(char str[256], char reply[1024]) { return guinn_enginecommand(str, reply); }
